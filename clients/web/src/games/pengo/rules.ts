/**
 * Pengo versus's rules page: the server's rule compendium (`GET /api/rules`), section by section.
 */

import { api } from "../../app/api";
import { el } from "../../app/dom";

export async function rulesPage(): Promise<Node[]> {
  const book = await api.rules();
  return [
    el("p", { id: "rules-heading" }, book.heading),
    ...book.sections.map((section) => el("section", {},
      el("h2", {}, section.title),
      el("table", { class: "rules" }, ...section.rows.map(([name, value, note]) =>
        el("tr", {}, el("td", { class: "name" }, name), el("td", {}, value), el("td", { class: "note" }, note)))))),
  ];
}
