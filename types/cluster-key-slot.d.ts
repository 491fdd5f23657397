/** The slice of cluster-key-slot (ioredis's own dependency, no types shipped) the gateway uses. */
declare module "cluster-key-slot" {
  /** The Redis Cluster hash slot (0–16383) of `key`: CRC16 of its `{hash tag}` when it has one, else of all of it. */
  export default function calculateSlot(key: string | Buffer): number;
}
