import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

/**
 * The start bundle's exact text rewrites of installed modules (build-start-bundle.mjs applies them),
 * each for start-up time or a hot path that profiling put near the top; each gives the same results
 * as the text it replaces. The build fails if a file no longer contains the text it expects (after an
 * upgrade: re-measure, then update or drop the entry).
 *
 * - @ethereumjs/util's bytes.js makes 65,536 BigInts at load (a cache for one- and two-byte values,
 *   about 8 ms and a collection at start-up); here the cache fills as values are first asked for.
 *   Its `bytesToBigInt` and `bigIntToBytes` (every MLOAD, MSTORE, CALLDATALOAD, storage read) go
 *   through hex strings built and parsed a character at a time; here a value of up to 6 significant
 *   bytes is a number, a longer one is hexed natively, and a bigint's hex digits are read straight
 *   into the bytes: 2 times faster for a 32-byte word, 13 for a small one (the same values and
 *   bytes over 200,000 random inputs; a negative bigint still throws the library's error).
 *   Its `setLength` pads through two array spreads of typed arrays (an iterator step per byte); here
 *   one zeroed array takes the bytes with `set`.
 * - @ethereumjs/rlp's `encode` is src/primitives/rlp.ts's two-pass encoder, with the library's own
 *   conversion of leaves: the same bytes 3-5 times faster (trie nodes, receipts, transactions).
 * - @ethereumjs/evm's interpreter awaits `runStep` for every opcode, an async function, though most
 *   opcodes (stack, arithmetic, jumps: no dynamic gas, a synchronous handler) never wait for anything.
 *   When nothing watches the steps (no `step` listener, debug log or profiler, no code-chunk charging),
 *   those opcodes run through `runStepSync`, `runStep`'s own statements for that case, without the
 *   promise and the microtask: about a tenth of the CPU of a balanceOf eth_call here.
 * - @ethereumjs/evm's gas.js declares every dynamic-gas handler `async`, so every MSTORE, MLOAD,
 *   KECCAK256, EXP, the copies, LOG, RETURN and REVERT went through `runStep` and two promises too,
 *   though their handlers only compute memory-expansion and word costs. Those handlers are plain
 *   functions here, and a dynamic-gas opcode with a synchronous handler (one answering a bigint, not a
 *   promise) runs through `runStepSync` with the cost it answered; the async promises and frames were
 *   12% of the bytes allocated while ERC-20 transfers commit. eth_call/s +23% and ERC-20 transfers/s
 *   +12% (medians of alternating runs); test/e2e/binary.test.ts compares the bundle's answers over
 *   those opcodes, their operands and gas limits with the library's.
 * - @ethereumjs/evm's memory.js gives every message frame 8 KiB of zeroed memory, allocated outside
 *   V8's heap, where a call of a view uses a few hundred bytes: at thousands of frames a second that
 *   external memory alone keeps the collector busy. Here a frame starts with 1 KiB and grows by the
 *   library's 8 KiB steps (what a contract sees of its memory does not change; MSIZE and gas count
 *   words): eth_call/s +6% in five alternating runs.
 * - @ethereumjs/evm's evm.js builds every message frame's input and result with object spreads of
 *   20-40 properties, which Node 20's V8 adds one by one through a slow path: about 70 µs of a 470 µs
 *   balanceOf eth_call here. `Object.assign` onto a fresh object copies the same own enumerable
 *   properties in the same order, in a fraction of the time. A spread followed by properties, one of
 *   which the spread object has too (`{ ...result, …, returnValue }`), costs about 9 µs in Node 20
 *   (0.3 µs as `Object.assign`): the frame result of every message.
 * - @noble/hashes' `bytesToHex` (@ethereumjs/util's `bytesToUnprefixedHex`: the state caches and the
 *   EIP-2929 warm sets key every account and slot access by hex) appends two digits a byte, which
 *   builds a chain of intermediate strings: about 7% of the bytes allocated while ERC-20 transfers
 *   commit. Node.js's native hex encoder gives the same string in one allocation, 3 times faster for
 *   32 bytes.
 */
export const REWRITES = [
  {
    file: /@ethereumjs[\\/]util[\\/]dist[\\/]esm[\\/]bytes\.js$/,
    replace: [
      ['for (let i = 0; i <= 256 * 256 - 1; i++) {\n    BIGINT_CACHE[i] = BigInt(i);\n}', ''],
      [
        `    const hex = bytesToHex(bytes);
    if (hex === '0x') {
        return BIGINT_0;
    }
    if (hex.length === 4) {
        // If the byte length is 1 (this is faster than checking \`bytes.length === 1\`)
        return BIGINT_CACHE[bytes[0]];
    }
    if (hex.length === 6) {
        return BIGINT_CACHE[bytes[0] * 256 + bytes[1]];
    }
    return BigInt(hex);`,
        `    const length = bytes.length;
    let i = 0;
    while (i < length && bytes[i] === 0)
        i++;
    if (length - i <= 6) {
        let value = 0;
        for (; i < length; i++)
            value = value * 256 + bytes[i];
        return value < 65536 ? (BIGINT_CACHE[value] ??= BigInt(value)) : BigInt(value);
    }
    return BigInt(\`0x\${Buffer.prototype.hexSlice.call(bytes, i, length)}\`);`,
      ],
      [
        `export const bigIntToBytes = (num, littleEndian = false) => {
    const bytes = hexToBytes(\`0x\${padToEven(num.toString(16))}\`);`,
        `const hexDigit = (code) => (code < 58 ? code - 48 : code - 87);
export const bigIntToBytes = (num, littleEndian = false) => {
    if (num < 0n)
        return hexToBytes(\`0x\${padToEven(num.toString(16))}\`);
    const hex = num.toString(16);
    const odd = hex.length & 1;
    const bytes = new Uint8Array((hex.length + odd) >> 1);
    let j = 0;
    let k = 0;
    if (odd) {
        bytes[0] = hexDigit(hex.charCodeAt(0));
        j = k = 1;
    }
    for (; j < bytes.length; j++, k += 2)
        bytes[j] = (hexDigit(hex.charCodeAt(k)) << 4) | hexDigit(hex.charCodeAt(k + 1));`,
      ],
      [
        `        return right
            ? new Uint8Array([...msg, ...new Uint8Array(length - msg.length)])
            : new Uint8Array([...new Uint8Array(length - msg.length), ...msg]);`,
        `        const padded = new Uint8Array(length);
        padded.set(msg, right ? 0 : length - msg.length);
        return padded;`,
      ],
    ],
  },
  {
    file: /@ethereumjs[\\/]rlp[\\/]dist[\\/]esm[\\/]index\.js$/,
    replace: [
      [
        'import { EthereumJSErrorWithoutCode } from "./errors.js";',
        `import { EthereumJSErrorWithoutCode } from "./errors.js";\nimport { encodeRlp } from ${JSON.stringify(join(root, 'dist/primitives/rlp.js'))};`,
      ],
      [
        'export function encode(input) {\n    if (Array.isArray(input)) {',
        'export function encode(input) {\n    return encodeRlp(input, toBytes);\n}\nfunction encodeByParts(input) {\n    if (Array.isArray(input)) {',
      ],
    ],
  },
  {
    file: /@ethereumjs[\\/]evm[\\/]dist[\\/]esm[\\/]interpreter\.js$/,
    replace: [
      [
        `        // Iterate through the given ops until something breaks or we hit STOP
        while (this._runState.programCounter < this._runState.code.length) {`,
        `        const syncSteps = overheadTimer === undefined &&
            this.profilerOpts?.enabled !== true &&
            this._evm.events.listenerCount('step') === 0 &&
            !this._evm.DEBUG &&
            !((this.common.isActivatedEIP(6800) || this.common.isActivatedEIP(7864)) && this._env.chargeCodeAccesses === true);
        // Iterate through the given ops until something breaks or we hit STOP
        while (this._runState.programCounter < this._runState.code.length) {`,
      ],
      [
        `                await this.runStep(opCodeObj);
                if (overheadTimer !== undefined) {`,
        `                const stepEntry = syncSteps ? (opCodeObj ?? this.lookupOpInfo(opCode)) : undefined;
                if (stepEntry !== undefined && !stepEntry.opcodeInfo.isAsync) {
                    if (!stepEntry.opcodeInfo.dynamicGas)
                        this.runStepSync(stepEntry, stepEntry.opcodeInfo.feeBigInt);
                    else {
                        const stepGas = stepEntry.gasHandler(this._runState, stepEntry.opcodeInfo.feeBigInt, this.common);
                        this.runStepSync(stepEntry, typeof stepGas === 'bigint' ? stepGas : await stepGas);
                    }
                }
                else
                    await this.runStep(opCodeObj);
                if (overheadTimer !== undefined) {`,
      ],
      [
        '    async runStep(opcodeObj) {',
        `    runStepSync(opEntry, gas) {
        const opInfo = opEntry.opcodeInfo;
        if (opInfo.isInvalid) {
            throw new EVMError(EVMError.errorMessages.INVALID_OPCODE);
        }
        this.useGas(gas, opInfo);
        this._runState.programCounter++;
        consumeEip7928PostTargetCallOog(this._runState);
        opEntry.opHandler(this._runState, this.common);
        this._runState.env.accessWitness?.commit();
    }
    async runStep(opcodeObj) {`,
      ],
    ],
  },
  {
    file: /@ethereumjs[\\/]evm[\\/]dist[\\/]esm[\\/]opcodes[\\/]gas\.js$/,
    replace: [
      syncGasHandler('EXP', '0x0a'),
      syncGasHandler('KECCAK256', '0x20'),
      syncGasHandler('CALLDATACOPY', '0x37'),
      syncGasHandler('CODECOPY', '0x39'),
      syncGasHandler('RETURNDATACOPY', '0x3e'),
      syncGasHandler('MLOAD', '0x51'),
      syncGasHandler('MSTORE', '0x52'),
      syncGasHandler('MSTORE8', '0x53'),
      syncGasHandler('MCOPY', '0x5e'),
      syncGasHandler('LOG', '0xa0'),
      syncGasHandler('RETURN', '0xf3'),
      syncGasHandler('REVERT', '0xfd'),
    ],
  },
  {
    file: /@ethereumjs[\\/]evm[\\/]dist[\\/]esm[\\/]memory\.js$/,
    replace: [
      ['const CONTAINER_SIZE = 8192;', 'const CONTAINER_SIZE = 8192;\nconst INITIAL_MEMORY_BYTES = 1024;'],
      ['        this._store = new Uint8Array(CONTAINER_SIZE);', '        this._store = new Uint8Array(INITIAL_MEMORY_BYTES);'],
    ],
  },
  {
    file: /@ethereumjs[\\/]evm[\\/]dist[\\/]esm[\\/]evm\.js$/,
    replace: [
      [
        `            result = await this.runInterpreter({
                ...{ codeAddress: message.codeAddress },
                ...message,
                gasLimit,
            }, {`,
        '            result = await this.runInterpreter(Object.assign({ codeAddress: message.codeAddress }, message, { gasLimit }), {',
      ],
      [
        `            result = {
                ...result,
                logs: [],
                selfdestruct: new Map(),
                createdAddresses: new Set(),
            };`,
        '            result = Object.assign({}, result, { logs: [], selfdestruct: new Map(), createdAddresses: new Set() });',
      ],
      [
        `        return {
            ...result,
            runState: {
                ...interpreterRes.runState,
                ...result,
                ...interpreter._env,
            },`,
        `        return Object.assign({}, result, {
            runState: Object.assign({}, interpreterRes.runState, result, interpreter._env),`,
      ],
      ['            returnValue: result.returnValue ?? new Uint8Array(0),\n        };', '            returnValue: result.returnValue ?? new Uint8Array(0),\n        });'],
    ],
  },
  {
    // The project's own @noble/hashes (2.x, which @ethereumjs/util uses), not older copies nested under other packages.
    file: new RegExp(`^${escapeRegExp(join(root, 'node_modules/@noble/hashes/utils.js'))}$`),
    replace: [
      [
        `    // pre-caching improves the speed 6x
    let hex = '';
    for (let i = 0; i < bytes.length; i++) {
        hex += hexes[bytes[i]];
    }
    return hex;`,
        '    return Buffer.prototype.hexSlice.call(bytes, 0, bytes.length);',
      ],
    ],
  },
]

/** The gas handler of opcode `name` (`hex` as the table writes it) as a plain function: its body awaits nothing. */
function syncGasHandler(name, hex) {
  const head = `        /* ${name} */\n        ${hex},\n        `
  return [`${head}async function (runState, gas, common) {`, `${head}function (runState, gas, common) {`]
}

function escapeRegExp(text) {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')
}
