// Closed-loop HTTP load with autocannon: a fixed number of connections, each sending its next request
// as soon as the previous one is answered.
import autocannon from "autocannon";

export interface LoadOptions {
  url: string;
  path: string;
  /** The JSON body of each request, called per request (e.g. to spread requests over threads). */
  body: () => string;
  connections: number;
  /** Stop after this many seconds … */
  seconds?: number;
  /** … or after this many requests (takes precedence). */
  amount?: number;
}

export interface LoadResult {
  /** 2xx answers per second: an error answered fast must not count as throughput. */
  requestsPerSecond: number;
  answered2xx: number;
  non2xx: number;
  /** Connection errors, timeouts included. */
  errors: number;
  seconds: number;
  latencyMs: { p50: number; p99: number; max: number };
}

/** POSTs `body()` to `path` under load and summarises what came back. */
export async function postLoad({ url, path, body, connections, seconds, amount }: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url,
    connections,
    ...(amount === undefined ? { duration: seconds } : { amount }),
    requests: [
      {
        method: "POST",
        path,
        headers: { "content-type": "application/json" },
        setupRequest: (request) => ({ ...request, body: body() }),
      },
    ],
  });
  return {
    requestsPerSecond: result["2xx"] / result.duration,
    answered2xx: result["2xx"],
    non2xx: result.non2xx,
    errors: result.errors,
    seconds: result.duration,
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
  };
}
