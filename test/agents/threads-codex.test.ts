import { threadSuite } from './threads-real.js';

threadSuite('codex');
