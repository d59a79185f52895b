export { assertGraphFields } from '../ops/graph-fields.js';

/** `none`, `-` or an empty string clear an optional field. */
export const clearing = (v: string) => v === '' || v === '-' || v.toLowerCase() === 'none';
