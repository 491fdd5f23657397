import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

/**
 * A Redis Sentinel stand-in on loopback speaking RESP, whose timing a test controls: it names the master
 * `setMaster` chose, can hold its answers to `SENTINEL GET-MASTER-ADDR-BY-NAME` (a slow sentinel on a loaded
 * machine), and publishes `+switch-master` when told. With `silent`, it accepts connections and never answers
 * (a sentinel on a frozen host).
 */
export interface ScriptedSentinel {
  /** `redis://127.0.0.1:<port>`, for `ledger.sentinel.sentinels`. */
  url: string;
  /** The master it names from now on: `127.0.0.1:<port>`. */
  setMaster(port: number): void;
  /**
   * Holds every master lookup from now until `release()`; `held` resolves once one is waiting.
   */
  holdLookups(): { held: Promise<void>; release(): void };
  /** Publishes `+switch-master <name> 127.0.0.1 <from> 127.0.0.1 <to>` to every subscriber. */
  switchMaster(from: number, to: number): void;
  /** Connections subscribed to `+switch-master` now. */
  subscribers(): number;
  /** Master lookups answered so far. */
  lookups(): number;
  close(): Promise<void>;
}

/** One RESP command per array of bulk strings; `rest` is what is not a whole command yet. */
export function parseRespCommands(buffer: Buffer): { commands: string[][]; rest: Buffer } {
  const commands: string[][] = [];
  let offset = 0;
  const line = (from: number): { text: string; next: number } | undefined => {
    const end = buffer.indexOf("\r\n", from);
    return end < 0 ? undefined : { text: buffer.toString("utf8", from, end), next: end + 2 };
  };
  for (;;) {
    const head = line(offset);
    if (head === undefined || !head.text.startsWith("*")) break;
    const count = Number(head.text.slice(1));
    const parts: string[] = [];
    let at = head.next;
    for (let i = 0; i < count; i++) {
      const size = line(at);
      if (size === undefined) break;
      const length = Number(size.text.slice(1));
      if (size.next + length + 2 > buffer.length) break;
      parts.push(buffer.toString("utf8", size.next, size.next + length));
      at = size.next + length + 2;
    }
    if (parts.length < count) break;
    commands.push(parts);
    offset = at;
  }
  return { commands, rest: buffer.subarray(offset) };
}

const bulk = (value: string) => `$${Buffer.byteLength(value)}\r\n${value}\r\n`;
const array = (values: string[]) => `*${values.length}\r\n${values.map(bulk).join("")}`;

export async function startScriptedSentinel(
  options: { name?: string; silent?: boolean } = {},
): Promise<ScriptedSentinel> {
  const name = options.name ?? "x402ledger";
  let masterPort = 0;
  let lookups = 0;
  let hold: { waiting: Array<() => void>; onHeld: () => void } | undefined;
  const subscribed = new Set<Socket>();
  const sockets = new Set<Socket>();

  const answer = (socket: Socket, command: string[]): void => {
    const [verb = "", sub = ""] = command.map((part) => part.toLowerCase());
    const reply = (text: string) => void (socket.writable && socket.write(text));
    if (verb === "sentinel" && sub === "get-master-addr-by-name") {
      const send = () => {
        lookups++;
        reply(array(["127.0.0.1", String(masterPort)]));
      };
      if (hold === undefined) return send();
      hold.waiting.push(send);
      return hold.onHeld();
    }
    if (verb === "sentinel" && (sub === "sentinels" || sub === "replicas" || sub === "slaves"))
      return reply("*0\r\n");
    if (verb === "subscribe") {
      subscribed.add(socket);
      return reply(`*3\r\n${bulk("subscribe")}${bulk(command[1] ?? "")}:1\r\n`);
    }
    if (verb === "ping") return reply("+PONG\r\n");
    if (verb === "client" || verb === "quit") return reply("+OK\r\n");
    reply(`-ERR unknown command '${command[0] ?? ""}'\r\n`);
  };

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => {
      sockets.delete(socket);
      subscribed.delete(socket);
    });
    socket.on("error", () => undefined);
    if (options.silent) return;
    let pending = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      const { commands, rest } = parseRespCommands(Buffer.concat([pending, chunk]));
      pending = Buffer.from(rest);
      for (const command of commands) answer(socket, command);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `redis://127.0.0.1:${port}`,
    setMaster(port) {
      masterPort = port;
    },
    holdLookups() {
      let onHeld!: () => void;
      const held = new Promise<void>((resolve) => (onHeld = resolve));
      const current = { waiting: [] as Array<() => void>, onHeld };
      hold = current;
      return {
        held,
        release() {
          if (hold === current) hold = undefined;
          for (const send of current.waiting.splice(0)) send();
        },
      };
    },
    switchMaster(from, to) {
      const message = `${name} 127.0.0.1 ${from} 127.0.0.1 ${to}`;
      for (const socket of subscribed) socket.write(array(["message", "+switch-master", message]));
    },
    subscribers: () => subscribed.size,
    lookups: () => lookups,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
