import { agentSuite } from './suite.js';

agentSuite('claude');
