#!/usr/bin/env node
// Runs the TypeScript CLI through tsx so that `matchcast` works straight from a checkout.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
