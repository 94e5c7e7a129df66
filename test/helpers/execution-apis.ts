/**
 * Validators from the vendored execution-apis OpenRPC schemas (test/fixtures/execution-apis): a method's
 * result schema or a named component, each returning undefined when the value is valid, else why not.
 */
import { readFileSync, readdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import Ajv2019 from 'ajv/dist/2019.js'
import { parse } from 'yaml'

const SRC = resolve(import.meta.dirname, '../fixtures/execution-apis/src')

/** A method of the OpenRPC document: its params, result schema and examples. */
export interface MethodSpec {
  name: string
  params: { name: string; required?: boolean; schema: unknown }[]
  result: { schema: unknown }
  examples?: { params: { value: unknown }[] }[]
}

function loadYaml(dir: string): unknown[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => parse(readFileSync(join(dir, f), 'utf8')) as unknown)
}

const schemas: Record<string, unknown> = Object.assign({}, ...loadYaml(join(SRC, 'schemas')))
/** The eth methods the schemas define, by name. */
export const methodSpecs = new Map<string, MethodSpec>((loadYaml(join(SRC, 'eth')).flat() as MethodSpec[]).map((m) => [m.name, m]))
const ajv = new Ajv2019.default({ strict: false, allErrors: true })
ajv.addSchema({ $id: 'openrpc', components: { schemas } })

export type Validator = (value: unknown) => string | undefined

/** Compiles `schema` with its `#/components/schemas/...` references resolved against the loaded schemas. */
export function compileSchema(schema: unknown): Validator {
  const rewritten = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"openrpc#/components/schemas/'))
  const validate = ajv.compile(rewritten)
  return (value) => (validate(value) ? undefined : ajv.errorsText(validate.errors) + '\n' + JSON.stringify(value))
}

/** The validator of `method`'s result (throws when the schemas do not define the method). */
export function resultValidator(method: string): Validator {
  const spec = methodSpecs.get(method)
  if (!spec) throw new Error(`execution-apis defines no ${method}`)
  return compileSchema(spec.result.schema)
}

/** The validator of a component schema (`TransactionInfo`, `bytes65`...). */
export function componentValidator(name: string): Validator {
  return compileSchema({ $ref: `#/components/schemas/${name}` })
}
