/** A dev home for history-retention tests. */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { initDevHome } from '../../src/config/init-home.js'
import { testNodeSettings } from '../../src/node/test-settings.js'

/**
 * A dev home whose genesis lets evidence name only the last 2 heights, so `min-retain-blocks` alone
 * decides the retain height (CometBFT's default evidence age would keep 100,000 heights).
 */
export async function initRetentionHome(): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), 'nodectl-retain-'))
  await initDevHome(home, { settings: testNodeSettings() })
  const path = join(home, 'config', 'genesis.json')
  const genesis = JSON.parse(await readFile(path, 'utf8')) as { consensus_params: { evidence: { max_age_num_blocks: string } } }
  genesis.consensus_params.evidence.max_age_num_blocks = '2'
  await writeFile(path, JSON.stringify(genesis, null, 2))
  return home
}
