// quintet: the pages' entry module. No build step, no framework: the browser loads the
// ES modules below (dom.js, cards.js, game.js, felt.js, sheet.js and one per page) and
// this one starts the page that <body data-page> names. Every game fact (seats, labels,
// variants, sides) comes from the server's /api/info.

import { lobbyPage } from "./lobby.js";
import { tablePage } from "./table.js";
import { replayPage } from "./replay.js";

const PAGES = { lobby: lobbyPage, table: tablePage, replay: replayPage };
const start = PAGES[document.body.dataset.page];
if (start) start();
// The lobby's "Learn" buttons (learn.js: a first hand against bots, explained).
if (document.body.dataset.page === "lobby") import("./learn.js").then((m) => m.mountLessons());
