export { type FeedDelta, ReplayFeed } from './feed.js';
