import { describe, expect, it } from "vitest";
import { freePorts } from "../../src/dev/ports.ts";

/** The kernel's choices, in order (a port it gave once may come again after its listener closed). */
function kernelGiving(ports: number[]) {
  const queue = [...ports];
  const closed: number[] = [];
  const listen = async () => {
    const port = queue.shift();
    if (port === undefined) throw new Error("no more ports");
    return { port, close: async () => void closed.push(port) };
  };
  return { listen, closed };
}

describe("freePorts", () => {
  it("never hands out a port twice in one process, even when the kernel gives it again", async () => {
    const first = kernelGiving([41001, 41002]);
    expect(await freePorts(2, first.listen)).toEqual([41001, 41002]);
    // etcd's client port of the first call comes back for the kubelet's healthz of the second
    const second = kernelGiving([41001, 41003, 41002, 41004]);
    expect(await freePorts(2, second.listen)).toEqual([41003, 41004]);
    expect(second.closed.sort()).toEqual([41001, 41002, 41003, 41004]);
  });

  it("gives distinct real ports across calls", async () => {
    const ports = [...(await freePorts(6)), ...(await freePorts(4)), ...(await freePorts(6))];
    expect(new Set(ports).size).toBe(16);
  });
});
