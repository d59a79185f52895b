export { holderOf, actingAgent, authorityCheck } from '../ops/holder.js';
