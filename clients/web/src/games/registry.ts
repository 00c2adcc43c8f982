/**
 * The games this client draws, by ruleset name (`joined.ruleset`): the only place that lists them.
 */

import { pengoView } from "./pengo/view";
import type { GameView } from "./view";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyGameView = GameView<any>;

/** pengo-solo (the daily challenge's runs) streams pengo-versus's words and layouts with its own events
 * (rules/solo/match.py SOLO_TABLES, read from `joined.tables`): one seat drawn by the same view. */
const pengoSoloView: AnyGameView = { ...pengoView, ruleset: "pengo-solo" };

const VIEWS: ReadonlyMap<string, AnyGameView> = new Map<string, AnyGameView>(
  [pengoView, pengoSoloView].map((view) => [view.ruleset, view]));

/** The ruleset whose rules page `#/rules` shows. */
export const DEFAULT_RULESET = pengoView.ruleset;

/** A ruleset's view (an error naming the rulesets known when it has none). */
export function viewFor(ruleset: string): AnyGameView {
  const view = VIEWS.get(ruleset);
  if (view === undefined) throw new Error(`this client cannot show ${ruleset} (it knows ${[...VIEWS.keys()].join(", ")})`);
  return view;
}
