import { describe, expect, it } from "vitest";
import { teamsToHandOver } from "./teams-to-hand-over.ts";

describe("teamsToHandOver", () => {
  const crew = { id: "org_1", name: "Render Crew" };
  const first = "Transfer or delete your organisations first";
  it.each([
    [
      { detail: first, organizations: [crew] },
      { detail: first, teams: [crew] },
    ],
    [
      { detail: "x", organizations: [crew, { id: "org_2", name: null }] },
      { detail: "x", teams: [crew, { id: "org_2", name: null }] },
    ],
    [
      { detail: "x", organizations: [crew, { id: 2, name: "n" }, { id: "org_3" }, null] },
      { detail: "x", teams: [crew] },
    ],
    [{ organizations: [crew] }, null],
    [{ detail: 409, organizations: [crew] }, null],
    [{ detail: "x", organizations: [] }, null],
    [{ detail: "x", organizations: "Render Crew" }, null],
    [{ detail: "Type your username exactly to confirm" }, null],
    [null, null],
    [undefined, null],
    ["Conflict", null],
  ])("%j -> %j", (body, refusal) => {
    expect(teamsToHandOver(body)).toEqual(refusal);
  });
});
