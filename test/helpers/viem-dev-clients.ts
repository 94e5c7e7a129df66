/** viem's clients of a dev node at `url`: the test client in both modes it speaks, and a public client. */
import { createPublicClient, createTestClient, http } from 'viem'
import { foundry } from 'viem/chains'

export function viemDevClients(url: string) {
  const chain = { ...foundry, rpcUrls: { default: { http: [url] } } }
  return {
    chain,
    anvil: createTestClient({ mode: 'anvil', chain, transport: http(url) }),
    hardhat: createTestClient({ mode: 'hardhat', chain, transport: http(url) }),
    client: createPublicClient({ chain, transport: http(url) }),
  }
}
