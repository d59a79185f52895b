// What signal-exit 3 (ink's exit handler, in dash) uses of node's assert: one argument check.
// Loading node:assert costs about 12 ms of cpu.
function equal(actual, expected, message) {
  if (actual != expected) throw new Error(message || `${actual} == ${expected}`);
}
module.exports = equal;
module.exports.equal = equal;
module.exports.ok = (value, message) => {
  if (!value) throw new Error(message || 'assertion failed');
};
