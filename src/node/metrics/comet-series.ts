/**
 * CometBFT's way of naming series: `<namespace>_<subsystem>_<name>`, every one labelled `chain_id`
 * (CometBFT `metrics.go` of each package, `PrometheusMetrics(namespace, "chain_id", chainID)`).
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client'

/** A series with the chain's label already applied. */
export interface BoundGauge {
  set(value: number): void
}
export interface BoundCounter {
  inc(value?: number): void
}
export interface BoundHistogram {
  observe(value: number): void
}

export class CometSeries {
  constructor(
    private readonly registry: Registry,
    /** `[instrumentation] namespace`; "" leaves the name without a prefix. */
    private readonly namespace: string,
    readonly chainId: string,
  ) {}

  /** `<namespace>_<subsystem>_<name>`, without the parts that are empty. */
  nameOf(subsystem: string, name: string): string {
    return [this.namespace, subsystem, name].filter((part) => part !== '').join('_')
  }

  /** A gauge; with `read`, its value is read from the node's state at each scrape. */
  gauge(subsystem: string, name: string, help: string, read?: () => number | undefined): BoundGauge {
    const chainId = this.chainId
    const gauge = new Gauge({
      name: this.nameOf(subsystem, name),
      help,
      labelNames: ['chain_id'],
      registers: [this.registry],
      ...(read
        ? {
            collect(this: Gauge<'chain_id'>) {
              const value = read()
              if (value !== undefined) this.set({ chain_id: chainId }, value)
            },
          }
        : {}),
    })
    return gauge.labels({ chain_id: chainId })
  }

  /** A gauge with labels beyond `chain_id` (`validator_power{validator_address}`). */
  labelledGauge<L extends string>(subsystem: string, name: string, help: string, labels: readonly L[]): Gauge<L | 'chain_id'> {
    return new Gauge({ name: this.nameOf(subsystem, name), help, labelNames: ['chain_id', ...labels], registers: [this.registry] })
  }

  counter(subsystem: string, name: string, help: string): BoundCounter {
    const counter = new Counter({ name: this.nameOf(subsystem, name), help, labelNames: ['chain_id'], registers: [this.registry] })
    const bound = counter.labels({ chain_id: this.chainId })
    // Exported as 0 from the start, as CometBFT's counters are, so a rate has a first sample.
    bound.inc(0)
    return bound
  }

  histogram(subsystem: string, name: string, help: string, buckets: number[]): BoundHistogram {
    return this.labelledHistogram(subsystem, name, help, [], buckets).labels({ chain_id: this.chainId })
  }

  /** A histogram with labels beyond `chain_id` (`step_duration_seconds{step}`). */
  labelledHistogram<L extends string>(
    subsystem: string,
    name: string,
    help: string,
    labels: readonly L[],
    buckets: number[],
  ): Histogram<L | 'chain_id'> {
    return new Histogram({
      name: this.nameOf(subsystem, name),
      help,
      labelNames: ['chain_id', ...labels],
      buckets,
      registers: [this.registry],
    })
  }
}

/**
 * Prometheus' `ExponentialBucketsRange(min, max, count)`: `count` buckets from `min` to `max`, each a
 * constant factor above the last (CometBFT's `buckettype=exprange`).
 */
export function exponentialBucketsRange(min: number, max: number, count: number): number[] {
  const factor = (max / min) ** (1 / (count - 1))
  return Array.from({ length: count }, (_, i) => min * factor ** i)
}
