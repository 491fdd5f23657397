/** The slice of autocannon 8's programmatic API the bench uses (the package ships no types). */
declare module "autocannon" {
  interface AutocannonRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    setupRequest?: (req: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest;
  }
  interface AutocannonOptions {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    timeout?: number;
    pipelining?: number;
    headers?: Record<string, string>;
    requests?: AutocannonRequest[];
  }
  interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p90: number;
    p99: number;
    max: number;
    total: number;
  }
  interface AutocannonResult {
    requests: Histogram & { total: number; sent: number };
    latency: Histogram;
    throughput: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
  }
  function autocannon(options: AutocannonOptions): Promise<AutocannonResult>;
  export default autocannon;
  export type { AutocannonOptions, AutocannonRequest, AutocannonResult };
}
