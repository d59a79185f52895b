// What signal-exit 3 (proper-lockfile's exit handler) uses of node's assert: one argument check.
// Loading node:assert costs about 12 ms of cpu, most of what taking a lock costs a short command.
function equal(actual, expected, message) {
  if (actual != expected) throw new Error(message || `${actual} == ${expected}`);
}
module.exports = equal;
module.exports.equal = equal;
module.exports.ok = (value, message) => {
  if (!value) throw new Error(message || 'assertion failed');
};
