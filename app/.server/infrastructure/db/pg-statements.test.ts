import { describe, expect, it } from "vitest";
import type { ClientBase } from "pg";
import { nameStatements, PLANNED_FOR_ITS_VALUES, StatementNames } from "./pg-statements";

/** A client that records what its query was called with. */
function recordingClient() {
  const calls: unknown[][] = [];
  const client = {
    query: (...args: unknown[]) => {
      calls.push(args);
      return Promise.resolve({ rows: [] });
    },
  } as unknown as ClientBase;
  return { client, calls };
}

describe("nameStatements", () => {
  it("names a statement by its text, the same name each time on every connection", () => {
    const names = new StatementNames();
    const a = recordingClient();
    const b = recordingClient();
    nameStatements(a.client, names);
    nameStatements(b.client, names);
    const callback = () => {};
    // The first sighting of each text goes unnamed.
    a.client.query("select * from users where id = $1", ["u0"]);
    a.client.query({ text: "update users set x = $1", values: [0] } as never);
    a.calls.length = 0;
    a.client.query("select * from users where id = $1", ["u1"], callback);
    b.client.query("select * from users where id = $1", ["u2"]);
    a.client.query({ text: "update users set x = $1", values: [1], rowMode: "array" } as never);
    expect(a.calls[0]?.[0]).toEqual({ name: "j1", text: "select * from users where id = $1", values: ["u1"] });
    expect(a.calls[0]?.[1]).toBeTypeOf("function");
    expect(b.calls[0]).toEqual([{ name: "j1", text: "select * from users where id = $1", values: ["u2"] }]);
    expect(a.calls[1]).toEqual([{ name: "j2", text: "update users set x = $1", values: [1], rowMode: "array" }]);
  });

  it("leaves transaction control, several statements and already named statements as they came", () => {
    const names = new StatementNames();
    const { client, calls } = recordingClient();
    nameStatements(client, names);
    client.query("BEGIN");
    client.query("set local statement_timeout = 1000");
    client.query("select 1; select 2");
    client.query({ name: "mine", text: "select 3" } as never);
    // Marked to be planned for its values each run: never named, however often it comes.
    for (let i = 0; i < 3; i++) client.query(`${PLANNED_FOR_ITS_VALUES}select 4 where $1 = 1`, [i]);
    expect(calls).toEqual([
      ["BEGIN"],
      ["set local statement_timeout = 1000"],
      ["select 1; select 2"],
      [{ name: "mine", text: "select 3" }],
      ...[0, 1, 2].map((i) => [`${PLANNED_FOR_ITS_VALUES}select 4 where $1 = 1`, [i]]),
    ]);
    expect(names.size).toBe(0);
  });

  it("names a text the second time it is seen, at most max texts; the rest go unnamed", () => {
    const names = new StatementNames(2);
    const twice = (text: string) => [names.nameOf(text), names.nameOf(text)];
    expect(twice("select 1")).toEqual([undefined, "j1"]);
    expect(twice("select 2")).toEqual([undefined, "j2"]);
    expect(twice("select 3")).toEqual([undefined, undefined]);
    expect(names.nameOf("select 1")).toBe("j1");
  });

  it("never names a text with a value written into it, seen once each time", () => {
    const names = new StatementNames(10);
    for (let i = 0; i < 100; i++) expect(names.nameOf(`select * from messages where at < '${i}'`)).toBeUndefined();
    expect(names.size).toBe(0);
  });
});
