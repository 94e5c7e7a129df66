/** Compiles the Solidity fixtures with solc-js (npm `solc`), once per process (tests and benchmark). */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { createRequire } from 'node:module'
import { REPO_ROOT } from './repo-root.js'

/** The Solidity sources of the tests and the benchmark. */
export const CONTRACTS_DIR = resolve(REPO_ROOT, 'test/fixtures/contracts')

interface Solc {
  compile(input: string): string
}

export interface CompiledContract {
  abi: unknown[]
  bytecode: string
  deployedBytecode: string
}

const cache = new Map<string, Record<string, CompiledContract>>()

/** solc-js is a dev dependency: loaded only when something is compiled. */
function loadSolc(): Solc {
  return createRequire(import.meta.url)('solc') as Solc
}

/** Compiles `test/fixtures/contracts/<file>` (optimizer on, evmVersion cancun). */
export function compileContracts(file: string): Record<string, CompiledContract> {
  const hit = cache.get(file)
  if (hit) return hit
  const path = resolve(CONTRACTS_DIR, file)
  const input = {
    language: 'Solidity',
    sources: { [file]: { content: readFileSync(path, 'utf8') } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  }
  const output = JSON.parse(loadSolc().compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[]
    contracts: Record<
      string,
      Record<string, { abi: unknown[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>
    >
  }
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join('\n'))
  const result: Record<string, CompiledContract> = {}
  for (const [name, c] of Object.entries(output.contracts[file]!)) {
    result[name] = { abi: c.abi, bytecode: '0x' + c.evm.bytecode.object, deployedBytecode: '0x' + c.evm.deployedBytecode.object }
  }
  cache.set(file, result)
  return result
}
