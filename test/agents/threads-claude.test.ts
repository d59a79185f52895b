import { threadSuite } from './threads-real.js';

threadSuite('claude');
