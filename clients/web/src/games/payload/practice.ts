/** Payload's entry in the games registry (games/registry.ts): its practice page, run in the browser engine. */

import type { PracticeGame } from "../registry";
import { payloadPage } from "./page";

export const payloadPractice: PracticeGame = {
  ruleset: "payload",
  route: "payload",
  label: "Payload (practice)",
  page: (daily) => payloadPage(daily),
  serverDaily: () => payloadPage(false, true),
  dailyLabel: "Payload daily",
};
