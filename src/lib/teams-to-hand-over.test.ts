import { describe, expect, it } from "vitest";
import { teamsToHandOver } from "./teams-to-hand-over.ts";

describe("teamsToHandOver", () => {
  const crew = { id: "org_1", name: "Render Crew" };
  it.each([
    [{ detail: "Transfer or delete your organisations first", organizations: [crew] }, [crew]],
    [
      { detail: "x", organizations: [crew, { id: "org_2", name: null }] },
      [crew, { id: "org_2", name: null }],
    ],
    [{ detail: "x", organizations: [crew, { id: 2, name: "n" }, { id: "org_3" }, null] }, [crew]],
    [{ detail: "x", organizations: [] }, null],
    [{ detail: "x", organizations: "Render Crew" }, null],
    [{ detail: "Type your username exactly to confirm" }, null],
    [null, null],
    [undefined, null],
    ["Conflict", null],
  ])("%j -> %j", (body, teams) => {
    expect(teamsToHandOver(body)).toEqual(teams);
  });
});
