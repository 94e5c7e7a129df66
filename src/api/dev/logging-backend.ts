/** What the dev logging methods need from the node: the contract console's switch. */
export interface DevLoggingBackend {
  /** Turns the printing of contract console.log calls on or off. */
  setLoggingEnabled(on: boolean): void
}
