/**
 * The JavaScript that builds geth's tracer API inside the sandbox (geth `eth/tracers/js/goja.go`):
 * the `log`, `db`, `frame`, `frameResult` and `ctx` objects and the global helpers `toHex`,
 * `toWord`, `toAddress`, `toContract`, `toContract2`, `isPrecompiled`, `slice` and `bigInt`.
 *
 * It is an expression evaluating to `function (host)`; js-tracer.ts calls it once with the host
 * functions and keeps the entry points it returns, so the program can neither reach the host
 * functions directly nor replace the entry points. Builtins are captured before the program runs.
 *
 * Values follow geth: numbers for pc, gas, cost, depth, refund, nonces and frame gas; bigInt objects
 * for stack words, memory words, balances and values; Uint8Array for bytes. geth's `bigInt` is the
 * BigInteger.js library; ours wraps QuickJS's native BigInt with the methods programs use
 * (`add`, `subtract`, `multiply`, `divide`, `mod`, `pow`, comparisons, `toString(radix)`,
 * `valueOf`, `toJSNumber`, `toJSON`…).
 *
 * Per step the host passes only numbers, written into a mailbox ArrayBuffer (no call arguments);
 * the stack, memory and contract are read from the host when the program asks (the stack in batches
 * of the top words, cached for the step).
 */
export const PRELUDE_SOURCE = `(function (host, marker) {
'use strict';
var U8 = Uint8Array, NativeBigInt = BigInt, stringify = JSON.stringify, parseJSON = JSON.parse;
var isInteger = Number.isInteger, trunc = Math.trunc, max = Math.max, min = Math.min;
var HEX = [];
for (var i = 0; i < 256; i++) HEX.push((i < 16 ? '0' : '') + i.toString(16));

// ---- bigInt: BigInteger.js's interface over native BigInt ----
function BigInteger(value) { this.value = value; }
function parseBig(v, radix) {
  if (v instanceof BigInteger) return v.value;
  if (typeof v === 'bigint') return v;
  if (v === undefined) return 0n;
  if (typeof v === 'number') {
    if (!isInteger(v)) throw new Error('Invalid integer: ' + v);
    return NativeBigInt(v);
  }
  var s = String(v).trim(), negative = false;
  if (s[0] === '-' || s[0] === '+') { negative = s[0] === '-'; s = s.slice(1); }
  var base = radix === undefined ? 10 : Number(radix);
  if ((base === 16 || radix === undefined) && (s.slice(0, 2) === '0x' || s.slice(0, 2) === '0X')) { base = 16; s = s.slice(2); }
  var digits = '0123456789abcdefghijklmnopqrstuvwxyz'.slice(0, base);
  var lower = s.toLowerCase();
  if (lower.length === 0) throw new Error('Invalid integer: ' + v);
  var result = 0n, b = NativeBigInt(base);
  for (var k = 0; k < lower.length; k++) {
    var d = digits.indexOf(lower[k]);
    if (d < 0) throw new Error('Invalid integer: ' + v);
    result = result * b + NativeBigInt(d);
  }
  return negative ? -result : result;
}
function big(v) { return new BigInteger(v); }
function bigInt(v, radix) { return big(parseBig(v, radix)); }
var P = BigInteger.prototype;
P.add = P.plus = function (x) { return big(this.value + parseBig(x)); };
P.subtract = P.minus = function (x) { return big(this.value - parseBig(x)); };
P.multiply = P.times = function (x) { return big(this.value * parseBig(x)); };
P.divide = P.over = function (x) { var d = parseBig(x); if (d === 0n) throw new Error('Cannot divide by zero'); return big(this.value / d); };
P.mod = P.remainder = function (x) { var d = parseBig(x); if (d === 0n) throw new Error('Cannot divide by zero'); return big(this.value % d); };
P.divmod = function (x) { return { quotient: this.divide(x), remainder: this.mod(x) }; };
P.pow = function (x) { var e = parseBig(x); return big(e < 0n ? 0n : this.value ** e); };
P.modPow = function (e, m) { var r = 1n, b = this.value, x = parseBig(e), n = parseBig(m); b %= n; while (x > 0n) { if (x & 1n) r = r * b % n; x >>= 1n; b = b * b % n; } return big(r); };
P.square = function () { return big(this.value * this.value); };
P.negate = function () { return big(-this.value); };
P.abs = function () { return big(this.value < 0n ? -this.value : this.value); };
P.next = function () { return big(this.value + 1n); };
P.prev = function () { return big(this.value - 1n); };
P.and = function (x) { return big(this.value & parseBig(x)); };
P.or = function (x) { return big(this.value | parseBig(x)); };
P.xor = function (x) { return big(this.value ^ parseBig(x)); };
P.not = function () { return big(~this.value); };
P.shiftLeft = function (n) { return big(this.value << parseBig(n)); };
P.shiftRight = function (n) { return big(this.value >> parseBig(n)); };
P.compare = P.compareTo = function (x) { var o = parseBig(x); return this.value === o ? 0 : this.value > o ? 1 : -1; };
P.compareAbs = function (x) { return this.abs().compare(bigInt(x).abs()); };
P.equals = P.eq = function (x) { return this.value === parseBig(x); };
P.notEquals = P.neq = function (x) { return this.value !== parseBig(x); };
P.greater = P.gt = function (x) { return this.value > parseBig(x); };
P.greaterOrEquals = P.geq = function (x) { return this.value >= parseBig(x); };
P.lesser = P.lt = function (x) { return this.value < parseBig(x); };
P.lesserOrEquals = P.leq = function (x) { return this.value <= parseBig(x); };
P.isZero = function () { return this.value === 0n; };
P.isPositive = function () { return this.value > 0n; };
P.isNegative = function () { return this.value < 0n; };
P.isEven = function () { return (this.value & 1n) === 0n; };
P.isOdd = function () { return (this.value & 1n) === 1n; };
P.isUnit = function () { return this.value === 1n || this.value === -1n; };
P.bitLength = function () { var v = this.value < 0n ? -this.value : this.value; return big(NativeBigInt(v.toString(2).length - (v === 0n ? 1 : 0))); };
P.toString = function (radix) { return this.value.toString(radix === undefined ? 10 : radix); };
P.toJSNumber = P.valueOf = function () { return Number(this.value); };
P.toJSON = function () { return this.value.toString(); };
bigInt.zero = big(0n); bigInt.one = big(1n); bigInt.minusOne = big(-1n);
bigInt.isInstance = function (x) { return x instanceof BigInteger; };
bigInt.max = function (a, b) { a = bigInt(a); b = bigInt(b); return a.greater(b) ? a : b; };
bigInt.min = function (a, b) { a = bigInt(a); b = bigInt(b); return a.lesser(b) ? a : b; };
bigInt.gcd = function (a, b) { var x = bigInt(a).abs().value, y = bigInt(b).abs().value; while (y) { var t = y; y = x % y; x = t; } return big(x); };
bigInt.lcm = function (a, b) { var x = bigInt(a).abs().value, y = bigInt(b).abs().value; return big(x === 0n || y === 0n ? 0n : x * y / bigInt.gcd(x, y).value); };

// ---- bytes ----
function toBuf(arrayBuffer) { return new U8(arrayBuffer); }
function hexOf(bytes) { var s = ''; for (var k = 0; k < bytes.length; k++) s += HEX[bytes[k]]; return s; }
function bytesOfHex(hex) {
  if (hex.slice(0, 2) === '0x' || hex.slice(0, 2) === '0X') hex = hex.slice(2);
  if (hex.length % 2 === 1) hex = '0' + hex;
  var out = new U8(hex.length / 2);
  for (var k = 0; k < out.length; k++) {
    var b = parseInt(hex.substr(k * 2, 2), 16);
    out[k] = b === b ? b : 0;
  }
  return out;
}
// geth fromBuf: a Uint8Array, an array of byte values, or (where allowed) a hex string.
function fromBuf(v, allowString) {
  if (v instanceof U8) return v;
  if (Array.isArray(v)) {
    var out = new U8(v.length);
    for (var k = 0; k < v.length; k++) {
      var n = Number(v[k]);
      if (!isInteger(n) || n < 0 || n > 255) throw new TypeError('invalid buffer type');
      out[k] = n;
    }
    return out;
  }
  if (allowString && typeof v === 'string') return bytesOfHex(v);
  throw new TypeError('invalid buffer type');
}
// geth common.BytesToHash / BytesToAddress: keep the last n bytes, left-pad with zeros.
function fit(bytes, n) {
  if (bytes.length >= n) return bytes.slice(bytes.length - n);
  var out = new U8(n); out.set(bytes, n - bytes.length); return out;
}
function toInt(v) { var n = trunc(Number(v)); return n === n ? n : 0; }
function addressHex(v) { return hexOf(fit(fromBuf(v, true), 20)); }

// ---- global helpers ----
function toHex(v) { return '0x' + hexOf(fromBuf(v, false)); }
function toWord(v) { return fit(fromBuf(v, true), 32); }
function toAddress(v) { return fit(fromBuf(v, true), 20); }
function toContract(from, nonce) { return toBuf(host.toContract(addressHex(from), toInt(nonce))); }
function toContract2(from, salt, initcode) {
  return toBuf(host.toContract2(addressHex(from), hexOf(fit(bytesOfHex(String(salt)), 32)), hexOf(fromBuf(initcode, true))));
}
function isPrecompiled(v) { return host.isPrecompiled(addressHex(v)); }
function slice(buf, start, end) {
  var b = fromBuf(buf, false); start = toInt(start); end = toInt(end);
  if (start < 0 || start > end || end > b.length) {
    throw new RangeError('Tracer accessed out of bound memory: available ' + b.length + ', offset ' + start + ', size ' + (end - start));
  }
  return b.slice(start, end);
}

// ---- the current step (set by the host before each step/fault) ----
var cur = { op: 0, pc: 0, gas: 0, cost: 0, depth: 0, refund: 0, stackLength: 0, memoryLength: 0, error: undefined };
var stackCache = [];
var contractCache = {};
var opNames = {};

var op = {
  toNumber: function () { return cur.op; },
  toString: function () { var n = opNames[cur.op]; if (n === undefined) n = opNames[cur.op] = host.opName(cur.op); return n; },
  isPush: function () { return cur.op >= 0x5f && cur.op <= 0x7f; }
};
var stack = {
  peek: function (index) {
    var i = toInt(index);
    if (i < 0 || i >= cur.stackLength) throw new RangeError('tracer accessed out of bound stack: size ' + cur.stackLength + ', index ' + i);
    if (eagerStack && i < STACK_WINDOW) {
      var at = WINDOW_OFFSET + i * 32;
      return big((boxView.getBigUint64(at) << 192n) | (boxView.getBigUint64(at + 8) << 128n) | (boxView.getBigUint64(at + 16) << 64n) | boxView.getBigUint64(at + 24));
    }
    if (i >= stackCache.length) {
      var want = min(cur.stackLength, max(i + 1, stackCache.length * 2, 8));
      stackCache = host.stackTop(want).split(',');
    }
    return big(NativeBigInt('0x' + stackCache[i]));
  },
  length: function () { return cur.stackLength; }
};
var memory = {
  slice: function (begin, end) { return toBuf(host.memorySlice(toInt(begin), toInt(end))); },
  getUint: function (offset) { return big(NativeBigInt('0x' + host.memoryGetUint(toInt(offset)))); },
  length: function () { return cur.memoryLength; }
};
function contractField(kind) {
  var v = contractCache[kind];
  if (v === undefined) v = contractCache[kind] = host.contract(kind);
  return v;
}
var contract = {
  getCaller: function () { return toBuf(contractField('caller')).slice(); },
  getAddress: function () { return toBuf(contractField('address')).slice(); },
  getValue: function () { return bigInt(contractField('value')); },
  getInput: function () { return toBuf(contractField('input')).slice(); }
};
var log = {
  op: op, stack: stack, memory: memory, contract: contract,
  getPC: function () { return cur.pc; },
  getGas: function () { return cur.gas; },
  getCost: function () { return cur.cost; },
  getDepth: function () { return cur.depth; },
  getRefund: function () { return cur.refund; },
  getError: function () { return cur.error; }
};
var db = {
  getBalance: function (a) { return bigInt(host.dbBalance(addressHex(a))); },
  getNonce: function (a) { return host.dbNonce(addressHex(a)); },
  getCode: function (a) { return toBuf(host.dbCode(addressHex(a))); },
  getState: function (a, slot) { return toBuf(host.dbState(addressHex(a), hexOf(fit(fromBuf(slot, true), 32)))); },
  exists: function (a) { return host.dbExists(addressHex(a)); }
};

// ---- call frames (enter/exit) ----
var frameData = { type: '', from: null, to: null, input: null, gas: 0, value: undefined };
var frame = {
  getType: function () { return frameData.type; },
  getFrom: function () { return toBuf(frameData.from).slice(); },
  getTo: function () { return toBuf(frameData.to).slice(); },
  getInput: function () { return toBuf(frameData.input).slice(); },
  getGas: function () { return frameData.gas; },
  getValue: function () { return frameData.value === undefined ? undefined : bigInt(frameData.value); }
};
var exitData = { gasUsed: 0, output: null, error: undefined };
var frameResult = {
  getGasUsed: function () { return exitData.gasUsed; },
  getOutput: function () { return toBuf(exitData.output).slice(); },
  getError: function () { return exitData.error; }
};

globalThis.bigInt = bigInt;
globalThis.toHex = toHex;
globalThis.toWord = toWord;
globalThis.toAddress = toAddress;
globalThis.toContract = toContract;
globalThis.toContract2 = toContract2;
globalThis.isPrecompiled = isPrecompiled;
globalThis.slice = slice;

// The mailbox: the host finds it by the random marker written here and then writes each step's
// numbers (BOX_SLOTS in js-tracer.ts) straight into it, so a step needs no arguments.
// After the 8 number slots come the top STACK_WINDOW stack words (32 bytes each, big-endian) when the
// host fills them (init's eagerStack), so peek(i) for a small i needs no call into the host.
var STACK_WINDOW = 8, WINDOW_OFFSET = 64;
var box = new ArrayBuffer(WINDOW_OFFSET + STACK_WINDOW * 32), boxSlots = new Float64Array(box, 0, 8), boxBytes = new U8(box);
var boxView = new DataView(box), eagerStack = false;
for (var m = 0; m < marker.length / 2; m++) boxBytes[m] = parseInt(marker.substr(m * 2, 2), 16);
boxBytes = null;
function stepFromBox(error) {
  setStep(boxSlots[0], boxSlots[1], boxSlots[2], boxSlots[3], boxSlots[4], boxSlots[5], boxSlots[6], boxSlots[7], error);
}

var program = null;
function setStep(o, pc, gas, cost, depth, refund, stackLength, memoryLength, error) {
  cur.op = o; cur.pc = pc; cur.gas = gas; cur.cost = cost; cur.depth = depth; cur.refund = refund;
  cur.stackLength = stackLength; cur.memoryLength = memoryLength; cur.error = error;
  stackCache = []; contractCache = {};
}
function isFunction(f) { return typeof f === 'function'; }

return {
  // Checks the program's shape as geth does and runs setup(config); returns 1 (step) | 2 (enter/exit).
  init: function (obj, config, eager) {
    eagerStack = eager === true;
    if (obj === null || (typeof obj !== 'object' && typeof obj !== 'function')) throw new TypeError('trace object must be an object');
    if (!isFunction(obj.result)) throw new TypeError('trace object must expose a function result()');
    if (!isFunction(obj.fault)) throw new TypeError('trace object must expose a function fault()');
    if (isFunction(obj.enter) !== isFunction(obj.exit)) throw new TypeError('trace object must expose either both or none of enter() and exit()');
    program = obj;
    if (isFunction(obj.setup)) obj.setup(config);
    return (isFunction(obj.step) ? 1 : 0) | (isFunction(obj.enter) ? 2 : 0);
  },
  step: function (o, pc, gas, cost, depth, refund, stackLength, memoryLength) {
    setStep(o, pc, gas, cost, depth, refund, stackLength, memoryLength, undefined);
    program.step(log, db);
  },
  fault: function (o, pc, gas, cost, depth, refund, stackLength, memoryLength, error) {
    setStep(o, pc, gas, cost, depth, refund, stackLength, memoryLength, error);
    program.fault(log, db);
  },
  stepFromBox: function () {
    stepFromBox(undefined);
    program.step(log, db);
  },
  faultFromBox: function (error) {
    stepFromBox(error);
    program.fault(log, db);
  },
  enter: function (type, from, to, input, gas, value) {
    frameData.type = type; frameData.from = from; frameData.to = to; frameData.input = input;
    frameData.gas = gas; frameData.value = value;
    program.enter(frame);
  },
  exit: function (gasUsed, output, error) {
    exitData.gasUsed = gasUsed; exitData.output = output; exitData.error = error;
    program.exit(frameResult);
  },
  // ctx arrives as JSON: hex for bytes, decimal strings for big numbers (see js-tracer.ts).
  result: function (ctxJson) {
    var raw = parseJSON(ctxJson), ctx = {};
    for (var key in raw) {
      var v = raw[key];
      if (key === 'value' || key === 'gasPrice') ctx[key] = bigInt(v);
      else if (key === 'from' || key === 'to' || key === 'input' || key === 'output' || key === 'coinbase' || key === 'blockHash' || key === 'txHash') ctx[key] = bytesOfHex(v);
      else ctx[key] = v;
    }
    var out = stringify(program.result(ctx, db));
    return out === undefined ? 'null' : out;
  }
};
})`
