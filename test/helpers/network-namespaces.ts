/**
 * Linux network namespaces for process tests (root and iproute2; no iptables): node i gets a namespace of its
 * own, joined to the root namespace by a veth pair on the subnet 10.B.i.0/24 (10.B.i.1 on the root side,
 * 10.B.i.2 inside as eth0, default route via the root side), B random per run. The root namespace routes
 * between them (`net.ipv4.ip_forward` is turned on for the run and restored by `destroy`). `partition` cuts
 * groups apart with blackhole routes inside each namespace to the other groups' subnets; `heal` deletes them.
 */
import { execFile, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { accessSync, constants, readFileSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { promisify } from 'node:util'

const execFileAsync = promisify(execFile)

const IP_FORWARD = '/proc/sys/net/ipv4/ip_forward'
/** Second octets B tried for the 10.B.i.0/24 subnets: away from 10.0.x and 10.1.x, which real networks favour. */
const FIRST_BASE = 100
const BASES = 100

/** True when this process may create a namespace with a veth pair in it and can have IPv4 forwarding on. */
export function canCreateNetworkNamespaces(): boolean {
  if (process.platform !== 'linux') return false
  const name = `nodectl-probe-${randomBytes(4).toString('hex')}`
  if (spawnSync('ip', ['netns', 'add', name], { stdio: 'ignore' }).status !== 0) return false
  try {
    const veth = spawnSync('ip', ['-n', name, 'link', 'add', 'probe0', 'type', 'veth', 'peer', 'name', 'probe1'], { stdio: 'ignore' })
    return veth.status === 0 && canForward()
  } finally {
    spawnSync('ip', ['netns', 'delete', name], { stdio: 'ignore' })
  }
}

function canForward(): boolean {
  try {
    if (readFileSync(IP_FORWARD, 'utf8').trim() === '1') return true
    accessSync(IP_FORWARD, constants.W_OK)
    return true
  } catch {
    return false
  }
}

/** `ip …`; rejects with its stderr. */
async function ip(...args: string[]): Promise<void> {
  try {
    await execFileAsync('ip', args)
  } catch (err) {
    const { stderr } = err as { stderr?: string }
    throw new Error(`ip ${args.join(' ')}: ${stderr?.trim() || (err as Error).message}`)
  }
}

/** One namespace per node, routed through the root namespace; see the file comment. `destroy` undoes it all. */
export class NamespaceNetwork {
  /** Namespaces and root-side veth ends created so far, for `destroy`. */
  private readonly namespaces: string[] = []
  private readonly veths: string[] = []
  /** Blackhole routes in place: [namespace, subnet]. */
  private blackholes: [string, string][] = []
  /** ip_forward's value before the run, when the run changed it. */
  private forwardBefore: string | undefined

  private constructor(
    /** B of the 10.B.i.0/24 subnets. */
    readonly base: number,
    private readonly suffix: string,
  ) {}

  /** Namespaces for nodes 0…count-1, wired and routed; on failure removes what it made and rejects. */
  static async create(count: number): Promise<NamespaceNetwork> {
    const network = new NamespaceNetwork(await pickBase(), randomBytes(3).toString('hex'))
    try {
      const before = (await readFile(IP_FORWARD, 'utf8')).trim()
      if (before !== '1') {
        await writeFile(IP_FORWARD, '1')
        network.forwardBefore = before
      }
      for (let i = 0; i < count; i++) await network.addNode(i)
    } catch (err) {
      await network.destroy()
      throw err
    }
    return network
  }

  /** Node i's address inside its namespace, 10.B.i.2. */
  hostOf(i: number): string {
    return `10.${this.base}.${i}.2`
  }

  /** The command that runs a program inside node i's namespace. */
  execPrefix(i: number): string[] {
    return ['ip', 'netns', 'exec', this.namespaceOf(i)]
  }

  /** Cuts every group off from the others: no packet crosses between nodes of different groups. */
  async partition(groups: number[][]): Promise<void> {
    for (const [g, group] of groups.entries()) {
      for (const other of groups.filter((_, h) => h !== g)) {
        for (const i of group) {
          for (const j of other) {
            const route: [string, string] = [this.namespaceOf(i), this.subnetOf(j)]
            await ip('-n', route[0], 'route', 'add', 'blackhole', route[1])
            this.blackholes.push(route)
          }
        }
      }
    }
  }

  /** Deletes the partition's routes. */
  async heal(): Promise<void> {
    const routes = this.blackholes
    this.blackholes = []
    for (const [namespace, subnet] of routes) await ip('-n', namespace, 'route', 'del', 'blackhole', subnet)
  }

  /** Removes the veth pairs and namespaces and restores ip_forward; idempotent, never rejects. */
  async destroy(): Promise<void> {
    this.blackholes = []
    // The root end first: deleting it removes its peer at once, whereas a deleted namespace frees its devices later.
    for (const veth of this.veths.splice(0)) await ip('link', 'delete', veth).catch(() => {})
    for (const namespace of this.namespaces.splice(0)) await ip('netns', 'delete', namespace).catch(() => {})
    if (this.forwardBefore !== undefined) {
      await writeFile(IP_FORWARD, this.forwardBefore).catch(() => {})
      this.forwardBefore = undefined
    }
  }

  private namespaceOf(i: number): string {
    return `nodectl-${this.suffix}-${i}`
  }

  private subnetOf(i: number): string {
    return `10.${this.base}.${i}.0/24`
  }

  private async addNode(i: number): Promise<void> {
    const namespace = this.namespaceOf(i)
    // Interface names are at most 15 characters: "nc" + 6 hex + index.
    const veth = `nc${this.suffix}${i}`
    await ip('netns', 'add', namespace)
    this.namespaces.push(namespace)
    await ip('link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', namespace)
    this.veths.push(veth)
    await ip('addr', 'add', `10.${this.base}.${i}.1/24`, 'dev', veth)
    await ip('link', 'set', veth, 'up')
    await ip('-n', namespace, 'addr', 'add', `${this.hostOf(i)}/24`, 'dev', 'eth0')
    await ip('-n', namespace, 'link', 'set', 'lo', 'up')
    await ip('-n', namespace, 'link', 'set', 'eth0', 'up')
    await ip('-n', namespace, 'route', 'add', 'default', 'via', `10.${this.base}.${i}.1`)
  }
}

/** A random B whose 10.B.0.0/16 no route or address of the machine mentions. */
async function pickBase(): Promise<number> {
  const { stdout } = await execFileAsync('ip', ['-4', 'route', 'show', 'table', 'all'])
  const free = Array.from({ length: BASES }, (_, k) => FIRST_BASE + k).filter((b) => !stdout.includes(`10.${b}.`))
  if (free.length === 0) throw new Error(`no free 10.B.0.0/16 for B in ${FIRST_BASE}..${FIRST_BASE + BASES - 1}`)
  return free[Math.floor(Math.random() * free.length)]!
}
