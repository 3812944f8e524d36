/**
 * Every TCP connection this process attempts, from Node's own `net.client.socket` diagnostics
 * channel (http, fetch, gRPC and the Kubernetes client all go through it): a test proves with it
 * that nothing it ran left loopback.
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { Socket } from "node:net";

const loopback = (ip: string) => ip === "::1" || ip.startsWith("127.");

export interface OutboundRecorder {
  /** The addresses attempted outside loopback so far (`ip:port`, or `host` when a lookup found no loopback). */
  outside(): string[];
  stop(): void;
}

export function recordOutbound(): OutboundRecorder {
  const seen = new Set<string>();
  const onSocket = (message: unknown) => {
    const { socket } = message as { socket: Socket };
    socket.on("connectionAttempt", (ip: string, port: number) => {
      if (!loopback(ip)) seen.add(`${ip}:${port}`);
    });
    socket.on("lookup", (error: Error | null, address: string, _family: unknown, host: string) => {
      if (error || !loopback(address)) seen.add(host);
    });
  };
  subscribe("net.client.socket", onSocket);
  return {
    outside: () => [...seen].sort(),
    stop: () => unsubscribe("net.client.socket", onSocket),
  };
}
