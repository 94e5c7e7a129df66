/**
 * @ethereumjs/evm: the interpreter's step, the dynamic-gas handlers, a frame's first memory and the
 * message frames' objects. Each edit gives the results of the text it replaces; together they took
 * eth_call/s up 23% and ERC-20 transfers/s up 12% (medians of alternating benchmark runs).
 */
export default {
  name: '@ethereumjs/evm',
  version: '10.1.3',
  files: {
    'dist/esm/interpreter.js': [
      {
        why: 'The interpreter awaits `runStep`, an async function, for every opcode, though most opcodes (stack, arithmetic, jumps, and the dynamic-gas ones whose handler answers a bigint) never wait for anything. When nothing watches the steps (no `step` listener, debug log or profiler, no code-chunk charging) such an opcode runs through `runStepSync` (the next edit), without the promise and the microtask: about a tenth of the CPU of a balanceOf eth_call.',
        from: `        // Iterate through the given ops until something breaks or we hit STOP
        while (this._runState.programCounter < this._runState.code.length) {`,
        to: `        // nodectl: opcodes take the synchronous step when nothing watches the steps
        const syncSteps = overheadTimer === undefined &&
            this.profilerOpts?.enabled !== true &&
            this._evm.events.listenerCount('step') === 0 &&
            !this._evm.DEBUG &&
            !((this.common.isActivatedEIP(6800) || this.common.isActivatedEIP(7864)) && this._env.chargeCodeAccesses === true);
        while (this._runState.programCounter < this._runState.code.length) {`,
      },
      {
        why: 'The loop takes the synchronous step for an opcode whose handler is synchronous, with the gas its gas handler answered (awaited only when that is a promise).',
        from: `                await this.runStep(opCodeObj);
                if (overheadTimer !== undefined) {`,
        to: `                const stepEntry = syncSteps ? (opCodeObj ?? this.lookupOpInfo(opCode)) : undefined;
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
      },
      {
        why: "`runStepSync`: `runStep`'s own statements for a step nothing watches, its gas already known.",
        from: '    async runStep(opcodeObj) {',
        to: `    runStepSync(opEntry, gas) {
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
      },
    ],
    'dist/esm/opcodes/gas.js': [
      'EXP 0x0a',
      'KECCAK256 0x20',
      'CALLDATACOPY 0x37',
      'CODECOPY 0x39',
      'RETURNDATACOPY 0x3e',
      'MLOAD 0x51',
      'MSTORE 0x52',
      'MSTORE8 0x53',
      'MCOPY 0x5e',
      'LOG 0xa0',
      'RETURN 0xf3',
      'REVERT 0xfd',
    ].map(syncGasHandler),
    'dist/esm/memory.js': [
      {
        why: "Every message frame got 8 KiB of zeroed memory, allocated outside V8's heap, where a call of a view uses a few hundred bytes: at thousands of frames a second that external memory alone keeps the collector busy. A frame now starts with 1 KiB and grows by the library's 8 KiB steps (what a contract sees does not change: MSIZE and gas count words): eth_call/s +6% in five alternating runs.",
        from: '        this._store = new Uint8Array(CONTAINER_SIZE);',
        to: "        // nodectl: a frame's first memory is 1 KiB; it grows by CONTAINER_SIZE steps\n        this._store = new Uint8Array(1024);",
      },
    ],
    'dist/esm/evm.js': [
      {
        why: "Every message frame's input was built with object spreads of 20-40 properties, which Node 20's V8 adds one by one through a slow path (about 70 µs of a 470 µs balanceOf eth_call). `Object.assign` onto a fresh object copies the same own enumerable properties in the same order, in a fraction of the time.",
        from: `            result = await this.runInterpreter({
                ...{ codeAddress: message.codeAddress },
                ...message,
                gasLimit,
            }, {`,
        to: '            result = await this.runInterpreter(Object.assign({ codeAddress: message.codeAddress }, message, { gasLimit }), {',
      },
      {
        why: 'The same for a failed frame’s result.',
        from: `            result = {
                ...result,
                logs: [],
                selfdestruct: new Map(),
                createdAddresses: new Set(),
            };`,
        to: '            result = Object.assign({}, result, { logs: [], selfdestruct: new Map(), createdAddresses: new Set() });',
      },
      {
        why: 'Every frame\'s result: a spread followed by properties the spread object has too (`{ ...result, …, returnValue }`) costs about 9 µs in Node 20, 0.3 µs as `Object.assign` (this edit and the next one close it).',
        from: `        return {
            ...result,
            runState: {
                ...interpreterRes.runState,
                ...result,
                ...interpreter._env,
            },`,
        to: `        return Object.assign({}, result, {
            runState: Object.assign({}, interpreterRes.runState, result, interpreter._env),`,
      },
      {
        why: 'The end of the object the previous edit opens.',
        from: '            returnValue: result.returnValue ?? new Uint8Array(0),\n        };',
        to: '            returnValue: result.returnValue ?? new Uint8Array(0),\n        });',
      },
    ],
  },
}

/**
 * The gas handler of an opcode (`name hex` as gas.js's table writes them) as a plain function: its body
 * awaits nothing (memory-expansion and word costs), so the interpreter's synchronous step can use it.
 * The async handlers and their promises were 12% of the bytes allocated while ERC-20 transfers commit.
 */
function syncGasHandler(opcode) {
  const [name, hex] = opcode.split(' ')
  const head = `        /* ${name} */\n        ${hex},\n        `
  return {
    why: `${name}'s gas handler computes only memory-expansion and word costs: declared async, it cost every ${name} two promises and kept it off the synchronous step.`,
    from: `${head}async function (runState, gas, common) {`,
    to: `${head}function (runState, gas, common) {`,
  }
}
