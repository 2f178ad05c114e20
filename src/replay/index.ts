export { type FeedDelta, ReplayFeed, type ReplayFeedOptions } from './feed.js';
