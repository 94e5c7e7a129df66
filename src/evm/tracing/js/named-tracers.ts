/**
 * geth's named JavaScript tracers that scripts still ask for by name (geth
 * `eth/tracers/js/internal/tracers/*.js`), written here as programs for our sandbox with geth's
 * result shapes:
 *
 * - opcountTracer: the number of opcodes executed (a JSON number).
 * - unigramTracer: `{"PUSH1": 12, …}`, each opcode's count.
 * - bigramTracer: `{"PUSH1-MSTORE": 3, …}`, pairs of consecutive opcodes in the same frame depth.
 * - trigramTracer: `{"PUSH1-PUSH1-MSTORE": 1, …}`, triples; the window restarts when the depth changes.
 * - evmdisTracer: the top frame's opcodes `[{op, depth, result, …}]` for evmdis-style disassembly;
 *   `result` holds the hex words the previous opcode pushed, calls carry `gas`, `to`, `value`,
 *   `input`, `error`, `return` and their own `ops`, JUMPDESTs their `pc`, pushes their `len`.
 */

const OPCOUNT = `{
  count: 0,
  step: function () { this.count += 1; },
  fault: function () {},
  result: function () { return this.count; }
}`

const UNIGRAM = `{
  hist: {},
  step: function (log) {
    var name = log.op.toString();
    this.hist[name] = (this.hist[name] || 0) + 1;
  },
  fault: function () {},
  result: function () { return this.hist; }
}`

const BIGRAM = `{
  hist: {},
  previous: '',
  previousDepth: 0,
  step: function (log) {
    var name = log.op.toString();
    var depth = log.getDepth();
    if (depth === this.previousDepth) {
      var key = this.previous + '-' + name;
      this.hist[key] = (this.hist[key] || 0) + 1;
    }
    this.previous = name;
    this.previousDepth = depth;
  },
  fault: function () {},
  result: function () { return this.hist; }
}`

const TRIGRAM = `{
  hist: {},
  window: ['', ''],
  windowDepth: 0,
  step: function (log) {
    var depth = log.getDepth();
    if (depth !== this.windowDepth) {
      this.window = ['', ''];
      this.windowDepth = depth;
      return;
    }
    var name = log.op.toString();
    var key = this.window[0] + '-' + this.window[1] + '-' + name;
    this.hist[key] = (this.hist[key] || 0) + 1;
    this.window = [this.window[1], name];
  },
  fault: function () {},
  result: function () { return this.hist; }
}`

/**
 * How many words each opcode pushes (0 for none), so the next step can record the results. Opcodes
 * not listed push nothing: STOP, stores, jumps, LOG*, RETURN/REVERT/SELFDESTRUCT…
 */
const EVMDIS = `{
  frames: [{ ops: [] }],
  pushes: (function () {
    var n = {};
    var one = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b,
      0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x20,
      0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x38, 0x3a, 0x3b, 0x3d, 0x3f,
      0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a,
      0x51, 0x54, 0x58, 0x59, 0x5a, 0x5c, 0xf0, 0xf1, 0xf2, 0xf4, 0xf5, 0xfa];
    for (var i = 0; i < one.length; i++) n[one[i]] = 1;
    for (var p = 0x5f; p <= 0x7f; p++) n[p] = 1;
    for (var d = 0; d < 16; d++) { n[0x80 + d] = d + 2; n[0x90 + d] = d + 2; }
    return n;
  })(),
  step: function (log) {
    var frame = this.frames[this.frames.length - 1];
    var error = log.getError();
    if (error) { frame.error = error; return; }
    var depth = log.getDepth();
    // Deeper than the frames kept: the init code of a CREATE/CREATE2 (and what it calls), which is
    // no frame here, as in geth's evmdis; recording it would file its opcodes under the creator.
    if (depth > this.frames.length) return;
    if (depth < this.frames.length) {
      // Back in an outer frame: drop the frames that returned.
      this.frames = this.frames.slice(0, depth);
      frame = this.frames[this.frames.length - 1];
    }
    if (frame.ops.length > 0) {
      var previous = frame.ops[frame.ops.length - 1];
      var count = this.pushes[previous.op] || 0;
      for (var i = 0; i < count; i++) previous.result.push(log.stack.peek(i).toString(16));
    }
    var entry = { op: log.op.toNumber(), depth: depth, result: [] };
    var name = log.op.toString();
    if (name === 'CALL' || name === 'CALLCODE' || name === 'DELEGATECALL' || name === 'STATICCALL') {
      var withValue = name === 'CALL' || name === 'CALLCODE';
      var inOffset = log.stack.peek(withValue ? 3 : 2).valueOf();
      var inSize = log.stack.peek(withValue ? 4 : 3).valueOf();
      if (!withValue) entry.op = name;
      entry.gas = log.stack.peek(0).valueOf();
      entry.to = log.stack.peek(1).toString(16);
      if (withValue) entry.value = log.stack.peek(2).toString();
      entry.input = log.memory.slice(inOffset, inOffset + inSize);
      entry.error = null;
      entry['return'] = null;
      entry.ops = [];
      this.frames.push(entry);
    } else if (name === 'RETURN' || name === 'REVERT') {
      var outOffset = log.stack.peek(0).valueOf();
      var outSize = log.stack.peek(1).valueOf();
      frame['return'] = log.memory.slice(outOffset, outOffset + outSize);
    } else if (name === 'STOP' || name === 'SELFDESTRUCT') {
      frame['return'] = log.memory.slice(0, 0);
    } else if (name === 'JUMPDEST') {
      entry.pc = log.getPC();
    }
    if (log.op.isPush()) entry.len = log.op.toNumber() - 0x5e;
    frame.ops.push(entry);
  },
  fault: function () {},
  result: function () { return this.frames[0].ops; }
}`

/** Name → program source, for debug_trace*'s `tracer` (geth registers the same names). */
export const namedJsTracers: Record<string, string> = {
  opcountTracer: OPCOUNT,
  unigramTracer: UNIGRAM,
  bigramTracer: BIGRAM,
  trigramTracer: TRIGRAM,
  evmdisTracer: EVMDIS,
}
