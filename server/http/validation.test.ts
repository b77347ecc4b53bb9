// urlencodedFields must give what Hono's own form reading gives, for every form a client may send.
import { parseBody } from "hono/utils/body";
import { describe, expect, it } from "vitest";
import { urlencodedFields } from "./validation.ts";

const honoFields = (body: string) =>
  parseBody(
    new Request("http://localhost/", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body,
    }),
    { all: true },
  );

describe("urlencodedFields", () => {
  it.each([
    "",
    "token=gpk_abc",
    "grant_type=password&username=ann&password=Abcdef1%21",
    "a=1&a=2&a=3",
    "a=1&b=2&a=3",
    "ids[]=1",
    "ids[]=1&ids[]=2",
    "plus=a+b&space=a%20b&amp=%26&eq=%3D&empty=&novalue",
    "%C5%81ukasz=%CE%A3%CE%BF%CF%86%CE%AF%CE%B1",
    "a.b=1&__proto__=x&constructor=y",
    "&&=&a",
  ])("%j reads as Hono reads it", async (body) => {
    const ours = urlencodedFields(body);
    expect({ ...ours }).toEqual({ ...(await honoFields(body)) });
    expect(Object.getPrototypeOf(ours)).toBeNull();
  });

  it("a single field is a string, a repeated one an array", () => {
    expect({ ...urlencodedFields("token=t1&token=t2&x=1") }).toEqual({ token: ["t1", "t2"], x: "1" });
  });
});
