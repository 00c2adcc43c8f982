/**
 * The games this client draws, by ruleset name (`joined.ruleset`): the only place that lists them.
 */

import { payloadPractice } from "./payload/practice";
import { payloadVersusView } from "./payload/versus";
import { pengoView } from "./pengo/view";
import type { GameView } from "./view";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyGameView = GameView<any>;

/** pengo-solo (the daily challenge's runs) streams pengo-versus's words and layouts with its own events
 * (rules/solo/match.py SOLO_TABLES, read from `joined.tables`): one seat drawn by the same view. */
const pengoSoloView: AnyGameView = { ...pengoView, ruleset: "pengo-solo" };

const VIEWS: ReadonlyMap<string, AnyGameView> = new Map<string, AnyGameView>(
  [pengoView, pengoSoloView, payloadVersusView].map((view) => [view.ruleset, view]));

/** The ruleset whose rules page `#/rules` shows. */
export const DEFAULT_RULESET = pengoView.ruleset;

/** Can this client draw a match of `ruleset`? (The server plays every registered ruleset: its lists name
 * each entry's; the lobby shows the ones this client can open.) */
export function canShow(ruleset: string): boolean {
  return VIEWS.has(ruleset);
}

/** A ruleset's view (an error naming the rulesets known when it has none). */
export function viewFor(ruleset: string): AnyGameView {
  const view = VIEWS.get(ruleset);
  if (view === undefined) throw new Error(`this client cannot show ${ruleset} (it knows ${[...VIEWS.keys()].join(", ")})`);
  return view;
}

/** A game played in the browser engine alone (no server match yet): its page and the lobby's button. */
export interface PracticeGame {
  /** The ruleset it plays (rules/registry.py's name). */
  readonly ruleset: string;
  /** The route's page (`#/{route}`) and the lobby's button. */
  readonly route: string;
  readonly label: string;
  page(daily: boolean): void;
}

/** The rulesets a player can start a room or a bot match of from the lobby, with their labels (the
 * first is the default: the server's own when none is named). */
export const PLAYABLE: readonly { ruleset: string; label: string }[] = [
  { ruleset: pengoView.ruleset, label: "Pengo versus" },
  { ruleset: payloadVersusView.ruleset, label: "Payload versus" },
];

/** The practice games, by route. */
export const PRACTICE: ReadonlyMap<string, PracticeGame> = new Map([[payloadPractice.route, payloadPractice]]);
