import { agentSuite } from './suite.js';

agentSuite('codex');
