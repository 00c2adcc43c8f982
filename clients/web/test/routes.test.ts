/**
 * The pages' addresses (app/routes.ts): each hash the client links to, read back as its route.
 */

import { describe, expect, it } from "vitest";
import { parseRoute } from "../src/app/routes";

describe("the routes", () => {
  it("reads every page's hash", () => {
    expect(parseRoute("#/play/m1?bot=lazy")).toEqual({ page: "play", match: "m1", bot: "lazy" });
    expect(parseRoute("#/play/m1")).toEqual({ page: "play", match: "m1", bot: null });
    expect(parseRoute("#/watch/m2")).toEqual({ page: "watch", match: "m2" });
    expect(parseRoute("#/replay/r3")).toEqual({ page: "replay", id: "r3" });
    expect(parseRoute("#/join/abc")).toEqual({ page: "join", invite: "abc" });
    expect(parseRoute("#/rules")).toEqual({ page: "rules", ruleset: null });
    expect(parseRoute("#/rules/payload-versus")).toEqual({ page: "rules", ruleset: "payload-versus" });
    expect(parseRoute("#/settings")).toEqual({ page: "settings" });
    expect(parseRoute("#/payload")).toEqual({ page: "payload", daily: false });
    expect(parseRoute("#/payload?daily")).toEqual({ page: "payload", daily: true });
  });

  it("shows the lobby for no hash, a page without its id, and an unknown page", () => {
    for (const hash of ["", "#/", "#/play", "#/play/", "#/nowhere/1"]) expect(parseRoute(hash)).toEqual({ page: "lobby" });
  });
});
