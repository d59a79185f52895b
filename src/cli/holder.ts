export { holderOf, actingAgent } from '../ops/holder.js';
