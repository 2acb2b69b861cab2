// app.js: voting, live updates, infinite scroll, search and posting on top of the
// server-rendered page. Plain JavaScript, no framework, no build step; user text only ever
// goes through `textContent` and attribute properties, never through HTML (the lint config
// beside this file forbids innerHTML and its kin).
"use strict";
(() => {
  const body = document.body;
  const board = document.getElementById("board");
  const statusLine = document.getElementById("status");
  const more = document.getElementById("more");
  const searchInput = document.getElementById("search");
  const form = document.getElementById("post-form");
  const compose = document.getElementById("compose");
  const pageSize = Number(body.dataset.pageSize) || 20;
  // A poster's own page (/p/ID): its one card, live; searching leaves for the board.
  const single = body.dataset.poster || "";
  // The widths /thumbs/ makes and how wide a card's picture is drawn (WebPage+Thumbnail.swift).
  const widths = [160, 320, 480, 640];
  const cardImageSizes = "(min-width: 1068px) 174px, (min-width: 720px) calc(25vw - 11px), calc(50vw - 14px)";
  // The votes-over-time chart's viewBox (TimelineChart.swift).
  const svgNS = "http://www.w3.org/2000/svg";
  const trendSize = { width: 320, height: 64 };
  const maxFeedLimit = 100;
  const searchDelay = 500;
  const longPress = 500;
  const maxQuestionBytes = Number(body.dataset.maxQuestion) || 4096;
  const announcer = document.getElementById("announcer");
  let strings = {};
  try { strings = JSON.parse(body.dataset.strings || "{}"); } catch (error) { /* English keys below */ }

  const state = {
    sort: ["popular", "trending"].includes(body.dataset.sort) ? body.dataset.sort : "new",
    query: body.dataset.query || "",
    next: body.dataset.next || null,
    loadingMore: false,
    counts: new Map(),
    feed: null,
    feedLimit: pageSize,
    searchTimer: 0,
    searchController: null,
    generation: 0,
  };

  // ---- small helpers -------------------------------------------------------------
  // The page language's text for `key` (WebText on the server), `{0}`, `{1}` … filled in.
  function t(key, ...args) {
    const template = strings[key] === undefined ? key : strings[key];
    return template.replace(/\{(\d+)\}/g, (whole, index) => (args[index] === undefined ? whole : String(args[index])));
  }
  // The API's messages name the form's fields image1 and image2; the form calls them otherwise.
  function fieldNames(message) {
    return message.replace(/image1/g, t("leftImage")).replace(/image2/g, t("rightImage"));
  }
  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  const cardFor = (id) => document.getElementById("poster-" + id);
  async function readJSON(response) {
    try { return await response.json(); } catch (error) {
      if (error.name === "AbortError") throw error;
      return null;
    }
  }
  function errorMessage(data, response) {
    const message = data && data.error && data.error.message;
    return message ? fieldNames(message) : t("serverAnswered", (response.status + " " + response.statusText).trim());
  }
  let toastTimer = 0;
  const toast = el("p", "toast");
  toast.setAttribute("role", "alert");
  toast.hidden = true;
  document.body.append(toast);
  function say(text) {
    toast.textContent = text;
    toast.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { toast.hidden = true; }, 4000);
  }
  function pagePath(query, sort) {
    const params = new URLSearchParams();
    if (sort !== "new") params.set("sort", sort);
    if (query) params.set("q", query);
    const text = params.toString();
    return "/" + (text ? "?" + text : "");
  }
  function listURL(query, cursor) {
    const params = new URLSearchParams({ sort: state.sort, limit: String(pageSize) });
    if (query) params.set("q", query);
    if (cursor) params.set("cursor", cursor);
    return (query ? "/api/v1/search?" : "/api/v1/posters?") + params;
  }
  // Store text made safe to show, by the rule the server's HTML follows (SafeText in
  // TenbinKit): line breaks become LF, a tab a space, C0 controls and DEL their control
  // pictures, C1 controls and bidirectional overrides U+FFFD.
  function safeText(text) {
    return String(text)
      .replace(/\r\n|[\r\u0085\u2028\u2029]/g, "\n")
      // Matching control characters is this expression's purpose.
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (character) => {
        const code = character.charCodeAt(0);
        if (code === 9) return " ";
        if (code < 0x20) return String.fromCharCode(0x2400 + code);
        if (code === 0x7f) return "\u2421";
        return "\ufffd";
      });
  }
  function altText(side, poster) {
    const own = side === 1 ? poster.alt1 : poster.alt2;
    if (own) return safeText(own);
    const which = t(side === 1 ? "leftImage" : "rightImage");
    return poster.contents ? t("altWithQuestion", which, safeText(poster.contents)) : t("altWithoutQuestion", which, poster.id);
  }
  function posterName(poster) {
    return poster.contents ? safeText(poster.contents) : t("posterNumber", poster.id);
  }
  // "3 min ago" for a <time>'s datetime, in the page's language; the date after 30 days.
  function relativeTime(time) {
    const then = Date.parse(time.dateTime);
    if (!Number.isFinite(then)) return;
    const minutes = Math.max(0, Math.floor((Date.now() - then) / 60000));
    let text = time.dateTime.slice(0, 10);
    if (minutes < 1) text = t("justNow");
    else if (minutes < 60) text = t("minutesAgo", minutes);
    else if (minutes < 24 * 60) text = t("hoursAgo", Math.floor(minutes / 60));
    else if (minutes < 30 * 24 * 60) text = t("daysAgo", Math.floor(minutes / 1440));
    time.textContent = text;
    time.title = new Date(then).toLocaleString(document.documentElement.lang);
  }
  function refreshTimes(root) {
    for (const time of root.querySelectorAll(".meta time")) relativeTime(time);
  }

  // ---- cards ---------------------------------------------------------------------
  // The same markup WebPage+Card.swift renders on the server.
  function buildCard(poster) {
    const card = el("li", "card");
    card.id = "poster-" + poster.id;
    card.dataset.id = String(poster.id);
    const article = el("article");
    article.setAttribute("aria-labelledby", "question-" + poster.id);
    const pair = el("div", "pair");
    poster.images.slice(0, 2).forEach((image, index) => {
      const side = el("div", "side side" + (index + 1));
      const link = el("a", "image");
      link.href = "/blobs/" + image.digest;
      link.dataset.side = String(index + 1);
      link.tabIndex = -1;
      const img = el("img");
      img.src = "/thumbs/" + image.digest + "?w=" + widths[1];
      img.srcset = widths.map((w) => "/thumbs/" + image.digest + "?w=" + w + " " + w + "w").join(", ");
      img.sizes = cardImageSizes;
      img.loading = "lazy";
      img.decoding = "async";
      img.width = image.width;
      img.height = image.height;
      img.alt = altText(index + 1, poster);
      link.append(img);
      const zoom = el("a", "zoom");
      zoom.href = link.href;
      zoom.dataset.side = String(index + 1);
      const label = t("viewLarge", t(index === 0 ? "leftImage" : "rightImage"));
      zoom.setAttribute("aria-label", label);
      zoom.title = label;
      side.append(link, zoom);
      pair.append(side);
    });
    article.append(pair);
    // A poster without a question is still named, for screen readers.
    const question = el("p", poster.contents ? "question" : "question sr", posterName(poster));
    question.id = "question-" + poster.id;
    if (poster.contents) question.dir = "auto";  // user text: its own direction, isolated from the page's
    article.append(question);
    if (poster.hashtags.length > 0) {
      const tags = el("ul", "tags");
      for (const tag of poster.hashtags) {
        const item = el("li");
        const link = el("a", "", "#" + safeText(tag));
        link.dir = "auto";
        link.href = pagePath("#" + tag, state.sort);
        item.append(link);
        tags.append(item);
      }
      article.append(tags);
    }
    const meter = el("div", "meter");
    meter.setAttribute("aria-hidden", "true");
    meter.append(el("span", "fill"));
    article.append(meter);
    const votes = el("form", "votes");
    votes.method = "post";
    votes.action = "/api/v1/posters/" + poster.id + "/votes";
    for (const side of [1, 2]) {
      const button = el("button", "vote side" + side);
      button.type = "submit";
      button.name = "side";
      button.value = String(side);
      button.dataset.side = String(side);
      button.append(el("span", "label", t(side === 1 ? "voteLeft" : "voteRight")),
        el("span", "sr", " – " + posterName(poster)), " ", el("span", "count"), " ", el("span", "pct"));
      votes.append(button);
    }
    article.append(votes);
    const meta = el("p", "meta");
    const link = el("a", "", "#" + poster.id);
    link.href = "/p/" + poster.id;
    const time = el("time", "", String(poster.createdAt).slice(0, 10));
    time.dateTime = poster.createdAt;
    relativeTime(time);
    meta.append(link, " · ", time, el("span", "tally"));
    article.append(meta);
    card.append(article);
    return card;
  }

  // Counts: the highest the server has reported (votes only ever grow) plus this
  // page's votes still on their way.
  function record(id) {
    let entry = state.counts.get(id);
    if (!entry) {
      entry = { good1: 0, good2: 0, pending: [0, 0] };
      state.counts.set(id, entry);
    }
    return entry;
  }
  function learn(id, good1, good2) {
    const entry = record(id);
    if (Number.isFinite(good1)) entry.good1 = Math.max(entry.good1, good1);
    if (Number.isFinite(good2)) entry.good2 = Math.max(entry.good2, good2);
  }
  function showCounts(id) {
    const card = cardFor(id);
    if (!card) return;
    const entry = record(id);
    const good1 = entry.good1 + entry.pending[0];
    const good2 = entry.good2 + entry.pending[1];
    const total = good1 + good2;
    const percent1 = total === 0 ? 50 : Math.round((good1 * 100) / total);
    card.dataset.good1 = String(good1);
    card.dataset.good2 = String(good2);
    const meter = card.querySelector(".meter");
    meter.classList.toggle("none", total === 0);
    meter.querySelector(".fill").className = "fill p" + percent1;
    const buttons = card.querySelectorAll(".vote");
    const shown = [[good1, percent1], [good2, 100 - percent1]];
    buttons.forEach((button, index) => {
      button.querySelector(".count").textContent = total === 0 ? "" : String(shown[index][0]);
      button.querySelector(".pct").textContent = total === 0 ? "" : shown[index][1] + "%";
    });
    const tally = card.querySelector(".tally");
    if (tally) tally.textContent = total === 0 ? " · " + t("noVotes") : "";
    extendTrend(card, good1, good2);
  }
  function tagsOf(card) {
    return Array.from(card.querySelectorAll(".tags a"), (link) => link.textContent.slice(1)).join("\n");
  }
  // Moves `card` to position `index` of the board (the end when past it), keeping focus.
  function place(card, index) {
    const others = Array.from(board.children).filter((node) => node !== card);
    const before = index < others.length ? others[index] : null;
    if (card.parentNode === board && card.nextElementSibling === before) return;
    const focused = card.contains(document.activeElement) ? document.activeElement : null;
    board.insertBefore(card, before);
    if (focused) focused.focus({ preventScroll: true });
  }
  function upsert(poster, index, arrived) {
    learn(poster.id, poster.good1, poster.good2);
    let card = cardFor(poster.id);
    if (!card) {
      card = buildCard(poster);
      if (arrived) card.classList.add("arrived");
    } else if (card.querySelector(".question").textContent !== posterName(poster) ||
               tagsOf(card) !== poster.hashtags.map(safeText).join("\n")) {
      const fresh = buildCard(poster);
      card.replaceWith(fresh);
      card = fresh;
    }
    place(card, index);
    showCounts(poster.id);
  }
  function removeCard(id) {
    const card = cardFor(id);
    if (card) card.remove();
    state.counts.delete(id);
    updateStatus();
  }
  // A poster that left the live window was deleted or only moved out of it: ask.
  async function checkGone(id) {
    try {
      const response = await fetch("/api/v1/posters/" + id, { headers: { Accept: "application/json" } });
      if (response.status === 404) removeCard(id);
    } catch (error) { /* offline: keep the card */ }
  }
  function updateStatus() {
    if (!statusLine) return;
    const count = board.children.length;
    if (!state.query) { statusLine.textContent = count === 0 ? t("noPostersYet") : ""; return; }
    // The query sits in a <bdi>: right-to-left text in it cannot reorder the sentence.
    const [before, after] = t(count === 0 ? "nothingMatches" : "postersMatching").split("{0}");
    statusLine.replaceChildren(before, el("bdi", "", state.query), after === undefined ? "" : after);
  }
  function updateMore() {
    if (!more) return;
    more.hidden = !state.next;
    more.href = state.next ? pagePath(state.query, state.sort) + (state.query || state.sort !== "new" ? "&" : "?") +
      "cursor=" + encodeURIComponent(state.next) : "#";
  }

  // ---- live feed -----------------------------------------------------------------
  function onFeedLine(data) {
    if (!data || typeof data !== "object") return;
    switch (data.type) {
      case "snapshot": {
        const ids = new Set(data.posters.map((poster) => poster.id));
        const top = Array.from(board.children).slice(0, state.feedLimit);
        data.posters.forEach((poster, index) => upsert(poster, index, false));
        for (const card of top) {
          const id = Number(card.dataset.id);
          if (!ids.has(id)) checkGone(id);
        }
        updateStatus();
        break;
      }
      case "added": upsert(data.poster, data.newIndex, true); updateStatus(); break;
      case "modified": upsert(data.poster, data.newIndex, false); break;
      case "removed": checkGone(data.poster ? data.poster.id : data.id); break;
    }
  }
  function openFeed() {
    if (state.feed) state.feed.close();
    state.feed = null;
    if (!("EventSource" in window)) return;
    const params = single ? new URLSearchParams({ poster: single })
      : new URLSearchParams({ sort: state.sort, limit: String(state.feedLimit) });
    if (state.query) params.set("q", state.query);
    const feed = new EventSource("/api/v1/feed?" + params);
    state.feed = feed;
    const handle = (event) => {
      if (state.feed !== feed) return;
      let data = null;
      try { data = JSON.parse(event.data); } catch (error) { return; }
      onFeedLine(data);
    };
    for (const name of ["snapshot", "added", "modified", "removed", "message"]) feed.addEventListener(name, handle);
    feed.addEventListener("open", () => body.classList.add("live"));
    feed.addEventListener("error", (event) => {
      body.classList.remove("live");
      // The server's own `error` event carries {"error": {"kind", "message"}}.
      if (state.feed === feed && event.data) {
        let data = null;
        try { data = JSON.parse(event.data); } catch (error) { /* not JSON */ }
        if (data && data.error) say(t("liveStopped", data.error.message));
      }
    });
  }

  // ---- voting --------------------------------------------------------------------
  // A vote for `side` of poster `id`, from its button or a tap on its image: the count moves
  // at once, the image and the count pulse, and the server's answer is announced politely.
  async function vote(id, side) {
    const entry = record(id);
    entry.pending[side - 1] += 1;
    showCounts(id);
    pulse(id, side);
    try {
      const response = await fetch("/api/v1/posters/" + id + "/votes", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json" },
        body: JSON.stringify({ side: side, times: 1 }),
      });
      const data = await readJSON(response);
      entry.pending[side - 1] -= 1;
      if (!response.ok) {
        if (response.status === 404) removeCard(id);
        say(t("voteNotCounted", errorMessage(data, response)));
      } else {
        const counts = data && data.poster ? data.poster : data || {};
        learn(id, counts.good1, counts.good2);
        announce(id, side);
      }
    } catch (error) {
      entry.pending[side - 1] -= 1;
      say(t("voteUnreachable"));
    }
    showCounts(id);
  }
  function pulse(id, side) {
    const card = cardFor(id);
    if (!card) return;
    for (const node of [card.querySelector(".side" + side + ".side"), card.querySelector(".vote.side" + side)]) {
      if (!node) continue;
      node.classList.remove("pulse");
      void node.offsetWidth;  // restarts the animation on a quick second tap
      node.classList.add("pulse");
    }
  }
  function announce(id, side) {
    const card = cardFor(id);
    if (!card || !announcer) return;
    const button = card.querySelector(".vote.side" + side);
    const label = button.querySelector(".label").textContent + button.querySelector(".sr").textContent;
    const count = Number(card.dataset["good" + side]);
    const total = Number(card.dataset.good1) + Number(card.dataset.good2);
    announcer.textContent = t("votedAnnouncement", label, count, total === 0 ? 0 : Math.round((count * 100) / total));
  }

  // ---- paging --------------------------------------------------------------------
  async function loadMore() {
    if (state.loadingMore || !state.next) return;
    state.loadingMore = true;
    const generation = state.generation;
    try {
      let response = await fetch(listURL(state.query, state.next), { headers: { Accept: "application/json" } });
      let data = await readJSON(response);
      if (response.status === 410 && data && data.error && data.error.kind === "cursor_expired") {
        // The walk began longer ago than the server keeps walks: start it again from the
        // first page. Cards shown stay (their counts updated); the walk goes on after them.
        response = await fetch(listURL(state.query, null), { headers: { Accept: "application/json" } });
        data = await readJSON(response);
      }
      if (generation !== state.generation) return;
      if (!response.ok || !data) { say(t("moreFailed", errorMessage(data, response))); return; }
      for (const poster of data.posters) {
        if (cardFor(poster.id)) learn(poster.id, poster.good1, poster.good2);
        else upsert(poster, Infinity, false);
      }
      state.next = data.next || null;
      updateMore();
      const wanted = Math.min(maxFeedLimit, board.children.length);
      if (wanted > state.feedLimit) {
        state.feedLimit = wanted;
        openFeed();
      }
    } catch (error) {
      say(t("moreUnreachable"));
    } finally {
      state.loadingMore = false;
    }
    if (state.next && more.getBoundingClientRect().top < window.innerHeight + 600) loadMore();
  }

  // ---- search --------------------------------------------------------------------
  function cancelSearch() {
    clearTimeout(state.searchTimer);
    if (state.searchController) state.searchController.abort();
    state.searchController = null;
  }
  async function runSearch(text) {
    cancelSearch();
    const query = text.trim() === "" ? "" : text.trim();
    const controller = new AbortController();
    state.searchController = controller;
    try {
      const response = await fetch(listURL(query, null), { signal: controller.signal, headers: { Accept: "application/json" } });
      const data = await readJSON(response);
      if (state.searchController !== controller) return;
      if (!response.ok || !data) { say(t("searchFailed", errorMessage(data, response))); return; }
      state.generation += 1;
      state.query = query;
      state.next = data.next || null;
      board.replaceChildren();
      state.counts.clear();
      data.posters.forEach((poster, index) => upsert(poster, index, false));
      history.replaceState(null, "", pagePath(query, state.sort));
      document.title = query ? query + " – tenbin" : "tenbin";
      for (const tab of document.querySelectorAll(".tab")) tab.href = pagePath(query, tab.dataset.sort);
      updateMore();
      updateStatus();
      state.feedLimit = pageSize;
      openFeed();
    } catch (error) {
      if (error.name !== "AbortError") say(t("searchUnreachable"));
    } finally {
      if (state.searchController === controller) state.searchController = null;
    }
  }

  // ---- posting -------------------------------------------------------------------
  const fields = ["image1", "image2", "alt1", "alt2", "contents", "hashtags", "form"];
  function fieldError(name, text) {
    const target = document.getElementById(name + "-error");
    target.textContent = text;
    const input = name === "form" ? null : document.getElementById(name);
    if (input) {
      if (text) input.setAttribute("aria-invalid", "true");
      else input.removeAttribute("aria-invalid");
    }
  }
  function clearErrors() { for (const name of fields) fieldError(name, ""); }
  // What the file's first bytes say it is, as the server will decide: nil when no
  // image format tenbin knows.
  async function sniff(file) {
    const bytes = new Uint8Array(await file.slice(0, 16).arrayBuffer());
    const ascii = (from, to) => String.fromCharCode(...bytes.slice(from, to));
    if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "jpeg";
    if (bytes[0] === 0x89 && ascii(1, 4) === "PNG") return "png";
    if (ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "webp";
    if (ascii(4, 8) === "ftyp") return "heif";
    return null;
  }
  function describeBad(file) {
    return file.size === 0 ? t("fileEmpty", file.name) : t("notAnImage", file.name);
  }
  async function picked(side) {
    const name = "image" + side;
    const input = document.getElementById(name);
    const preview = document.getElementById(name + "-preview");
    fieldError(name, "");
    if (preview.src) URL.revokeObjectURL(preview.src);
    preview.removeAttribute("src");
    preview.hidden = true;
    const file = input.files[0];
    if (!file) return;
    if (!(await sniff(file))) { fieldError(name, describeBad(file)); return; }
    preview.src = URL.createObjectURL(file);
    preview.hidden = false;
  }
  // Which field a server error is about: named in its message, or (for a body that is
  // too large) the larger image.
  function fieldFor(message, status, files) {
    const text = message.toLowerCase();
    const left = /image ?1|first image|left image/.test(text) || message.includes(t("leftImage"));
    if (/alt text of/.test(text)) return left ? "alt1" : "alt2";
    if (/image ?1|first image|left image/.test(text) || message.includes(t("leftImage"))) return "image1";
    if (/image ?2|second image|right image/.test(text) || message.includes(t("rightImage"))) return "image2";
    if (files[0] && files[0].name && message.includes(files[0].name)) return "image1";
    if (files[1] && files[1].name && message.includes(files[1].name)) return "image2";
    if (/hashtag/.test(text)) return "hashtags";
    if (/contents|question|text/.test(text)) return "contents";
    if (status === 413 && files[0] && files[1]) return files[0].size >= files[1].size ? "image1" : "image2";
    return "form";
  }
  // The server counts the question's limit in UTF-8 bytes, which `maxlength` cannot.
  function checkQuestion() {
    const bytes = new TextEncoder().encode(document.getElementById("contents").value).length;
    fieldError("contents", bytes > maxQuestionBytes ? t("questionTooLong", bytes, maxQuestionBytes) : "");
    return bytes <= maxQuestionBytes;
  }
  function splitTags(text) {
    return text.split(/[\s,、，]+/).filter((tag) => tag !== "");
  }
  // A board started with --post-proof asks each post for a proof of work: a challenge from
  // the server, a nonce found in proof-worker.js (off this thread, so the page stays usable),
  // sent as the Tenbin-Proof header. The status line says how far it is, at most every tenth.
  const proofBits = Number(body.dataset.postProof) || 0;
  async function proveWork() {
    const response = await fetch("/api/v1/post-proof", { headers: { Accept: "application/json" }, cache: "no-store" });
    const answer = await readJSON(response);
    if (!response.ok || !answer || !answer.challenge) throw new Error(errorMessage(answer, response));
    const status = document.getElementById("proof-status");
    const meter = document.getElementById("proof-progress");
    const expected = Math.pow(2, answer.bits);
    let shown = 0;
    meter.value = 0;
    meter.hidden = false;
    status.textContent = t("proofWorking", 0);
    const worker = new Worker(body.dataset.proofWorker);
    try {
      return await new Promise((resolve, reject) => {
        worker.onmessage = (message) => {
          const data = message.data;
          if (data.error) return reject(new Error(data.error));
          if (data.proof) return resolve(data.proof);
          const percent = Math.min(99, Math.floor((100 * data.tries) / expected));
          meter.value = percent;
          if (percent >= shown + 10) {
            shown = percent - (percent % 10);
            status.textContent = t("proofWorking", shown);
          }
        };
        worker.onerror = (event) => reject(new Error(event.message || "the worker failed"));
        worker.postMessage({ challenge: answer.challenge, bits: answer.bits });
      });
    } finally {
      worker.terminate();
      meter.hidden = true;
      status.textContent = "";
    }
  }

  async function submitPost(event) {
    event.preventDefault();
    clearErrors();
    const files = [1, 2].map((side) => document.getElementById("image" + side).files[0]);
    let firstBad = null;
    for (const [index, file] of files.entries()) {
      const name = "image" + (index + 1);
      let problem = null;
      if (!file) problem = t(index === 0 ? "chooseLeft" : "chooseRight");
      else if (!(await sniff(file))) problem = describeBad(file);
      if (problem) {
        fieldError(name, problem);
        firstBad = firstBad || name;
      }
    }
    if (!checkQuestion()) firstBad = firstBad || "contents";
    if (firstBad) { document.getElementById(firstBad).focus(); return; }
    // The server refuses a body over its limit before reading it: say so before a phone
    // spends minutes sending it. The form's other fields and its framing take at most
    // 16 KiB more.
    const maxUpload = Number(body.dataset.maxUpload) || 0;
    const total = files[0].size + files[1].size;
    if (maxUpload > 0 && total + 16384 > maxUpload) {
      const larger = files[0].size >= files[1].size ? "image1" : "image2";
      const mb = (bytes) => (bytes / 1048576).toFixed(1) + " MB";
      fieldError(larger, t("tooLarge", mb(total), mb(maxUpload)));
      document.getElementById(larger).focus();
      return;
    }
    const data = new FormData();
    data.append("image1", files[0]);
    data.append("image2", files[1]);
    data.append("contents", document.getElementById("contents").value);
    for (const name of ["alt1", "alt2"]) {
      const value = document.getElementById(name).value.trim();
      if (value) data.append(name, value);
    }
    for (const tag of splitTags(document.getElementById("hashtags").value)) data.append("hashtags", tag);
    const submit = document.getElementById("post-submit");
    submit.disabled = true;
    try {
      const headers = { Accept: "application/json" };
      if (proofBits > 0) {
        try {
          headers["Tenbin-Proof"] = await proveWork();
        } catch (failure) {
          fieldError("form", t("proofFailed", failure.message));
          return;
        }
      }
      const response = await fetch(form.action, { method: "POST", body: data, headers });
      const answer = await readJSON(response);
      if (!response.ok) {
        const message = errorMessage(answer, response);
        const field = fieldFor(message, response.status, files);
        fieldError(field, message);
        if (field !== "form") document.getElementById(field).focus();
        return;
      }
      const poster = answer && answer.poster ? answer.poster : answer;
      form.reset();
      for (const side of [1, 2]) await picked(side);
      compose.open = false;
      if (poster && poster.id !== undefined) {
        if (!state.query && state.sort === "new") upsert(poster, 0, true);
        say(t("posted", poster.id));
        updateStatus();
      }
    } catch (error) {
      fieldError("form", t("postUnreachable"));
    } finally {
      submit.disabled = false;
    }
  }

  // ---- sharing (a poster's page) -------------------------------------------------
  // The Share button: the system's share sheet where the browser has one, else the link
  // copied. Without this script the page shows the link itself.
  function shareButton() {
    const button = document.getElementById("share");
    if (!button) return;
    const status = document.getElementById("share-status");
    button.hidden = false;
    button.addEventListener("click", async () => {
      const url = button.dataset.url;
      try {
        if (navigator.share) {
          await navigator.share({ title: button.dataset.title, url: url });
          return;
        }
        await navigator.clipboard.writeText(url);
        status.textContent = t("linkCopied");
      } catch (error) {
        if (error.name !== "AbortError") status.textContent = t("copyTheLink", url);
      }
    });
  }

  // ---- wiring --------------------------------------------------------------------
  for (const card of board.children) {
    learn(Number(card.dataset.id), Number(card.dataset.good1), Number(card.dataset.good2));
  }
  // ---- lightbox: the full image, from the zoom control or a long press on an image ----
  const lightbox = el("dialog", "lightbox");
  const lightboxImage = el("img");
  const lightboxClose = el("button", "", t("close"));
  lightboxClose.type = "button";
  lightbox.append(lightboxImage, lightboxClose);
  document.body.append(lightbox);
  lightboxClose.addEventListener("click", () => lightbox.close());
  lightbox.addEventListener("click", (event) => { if (event.target === lightbox) lightbox.close(); });
  function openLightbox(link) {
    if (typeof lightbox.showModal !== "function") { window.location.href = link.href; return; }
    const img = link.closest(".side").querySelector(".image img");
    lightboxImage.src = link.href;
    lightboxImage.alt = img ? img.alt : "";
    lightbox.setAttribute("aria-label", lightboxImage.alt);
    lightbox.showModal();
    lightboxClose.focus();
  }
  // A press held on an image opens it large instead of voting.
  const press = { timer: 0, fired: false };
  board.addEventListener("pointerdown", (event) => {
    const image = event.target.closest("a.image");
    press.fired = false;
    clearTimeout(press.timer);
    if (!image || (event.pointerType === "mouse" && event.button !== 0)) return;
    press.timer = setTimeout(() => { press.fired = true; openLightbox(image); }, longPress);
  });
  for (const name of ["pointerup", "pointercancel", "pointerleave"]) {
    board.addEventListener(name, () => clearTimeout(press.timer));
  }
  board.addEventListener("contextmenu", (event) => {
    if (event.target.closest("a.image")) event.preventDefault();
  });
  board.addEventListener("click", (event) => {
    const image = event.target.closest("a.image");
    if (image && board.contains(image) && !event.ctrlKey && !event.metaKey && !event.shiftKey) {
      event.preventDefault();  // the link to the full image is for pages without this script
      if (press.fired) { press.fired = false; return; }
      vote(Number(image.closest(".card").dataset.id), Number(image.dataset.side));
      return;
    }
    const zoom = event.target.closest("a.zoom");
    if (zoom && board.contains(zoom) && !event.ctrlKey && !event.metaKey && !event.shiftKey) {
      event.preventDefault();
      openLightbox(zoom);
      return;
    }
    const button = event.target.closest("button.vote");
    if (button && board.contains(button)) {
      event.preventDefault();  // the form is for pages without this script
      vote(Number(button.closest(".card").dataset.id), Number(button.dataset.side));
      return;
    }
    const tag = event.target.closest(".tags a");
    if (tag && !single && !event.ctrlKey && !event.metaKey && !event.shiftKey && event.button === 0) {
      event.preventDefault();
      searchInput.value = tag.textContent;
      window.scrollTo({ top: 0 });
      runSearch(searchInput.value);
    }
  });
  if (!single) searchInput.addEventListener("input", () => {
    cancelSearch();
    state.searchTimer = setTimeout(() => runSearch(searchInput.value), searchDelay);
  });
  if (!single) searchInput.form.addEventListener("submit", (event) => {
    event.preventDefault();
    runSearch(searchInput.value);
  });
  document.addEventListener("keydown", (event) => {
    const typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName);
    if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      searchInput.focus();
    } else if (event.key === "Escape" && !single && document.activeElement === searchInput && searchInput.value) {
      searchInput.value = "";
      runSearch("");
    }
  });
  if (more) more.addEventListener("click", (event) => {
    event.preventDefault();
    loadMore();
  });
  if (more && "IntersectionObserver" in window) {
    new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) loadMore();
    }, { rootMargin: "600px" }).observe(more);
  }
  if (form) {
    for (const side of [1, 2]) document.getElementById("image" + side).addEventListener("change", () => picked(side));
    document.getElementById("contents").addEventListener("input", checkQuestion);
    form.addEventListener("submit", submitPost);
  }
  // ---- votes over time: the chart TimelineChart.swift draws, extended by live votes ----
  function numbers(text) {
    return text ? text.split(",").map(Number) : [];
  }
  // Each side's running total as a line, time across and votes up (as TimelineChart.lines()).
  function drawTrend(figure) {
    const times = numbers(figure.dataset.times);
    const sides = [numbers(figure.dataset.good1), numbers(figure.dataset.good2)];
    const now = Number(figure.dataset.now);
    const lines = figure.querySelectorAll("polyline");
    if (times.length === 0) return;
    figure.classList.remove("empty");
    const span = Math.max(now - times[0], 1);
    const top = Math.max(1, ...sides[0], ...sides[1]);
    sides.forEach((values, index) => {
      const y = (value) => Math.round((trendSize.height - (value / top) * (trendSize.height - 4) - 2) * 10) / 10;
      const points = times.map((time, at) => Math.round(((time - times[0]) / span) * trendSize.width * 10) / 10 + "," + y(values[at]));
      if (times[times.length - 1] < now) points.push(trendSize.width + "," + y(values[values.length - 1]));
      lines[index].setAttribute("points", points.join(" "));
    });
    const summary = figure.querySelector(".trend-summary");
    const start = new Date(times[0] * 1000).toISOString();
    summary.textContent = t("trendSummary", start.slice(0, 10) + " " + start.slice(11, 16) + " UTC",
      sides[0][sides[0].length - 1], sides[1][sides[1].length - 1], figure.dataset.recent1, figure.dataset.recent2);
  }
  // A live count reaches the chart: a point now at the new totals (the last one moved when it
  // is under a minute old, so a stream of votes does not grow the figure without end).
  function extendTrend(card, good1, good2) {
    const figure = card.querySelector(".trend");
    if (!figure) return;
    const times = numbers(figure.dataset.times);
    const sides = [numbers(figure.dataset.good1), numbers(figure.dataset.good2)];
    const last = times.length - 1;
    const before = last < 0 ? [0, 0] : [sides[0][last], sides[1][last]];
    if (good1 <= before[0] && good2 <= before[1]) return;
    const now = Math.max(Math.floor(Date.now() / 1000), last < 0 ? 0 : times[last]);
    if (last < 0) {
      times.push(now);
      sides[0].push(0);
      sides[1].push(0);
    }
    if (last > 0 && now - times[last] < 60) {
      sides[0][last] = good1;
      sides[1][last] = good2;
    } else {
      times.push(now);
      sides[0].push(good1);
      sides[1].push(good2);
    }
    figure.dataset.recent1 = String(Number(figure.dataset.recent1) + Math.max(0, good1 - before[0]));
    figure.dataset.recent2 = String(Number(figure.dataset.recent2) + Math.max(0, good2 - before[1]));
    figure.dataset.times = times.join(",");
    figure.dataset.good1 = sides[0].join(",");
    figure.dataset.good2 = sides[1].join(",");
    figure.dataset.now = String(now);
    drawTrend(figure);
  }
  // The compact chart of a board card, from the API's hourly timeline (as TimelineChart.init).
  function trendFigure(id, buckets) {
    const figure = el("figure", "trend compact");
    const svg = document.createElementNS(svgNS, "svg");
    svg.setAttribute("viewBox", "0 0 " + trendSize.width + " " + trendSize.height);
    svg.setAttribute("preserveAspectRatio", "none");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-labelledby", "trend-" + id);
    for (const side of [1, 2]) {
      const line = document.createElementNS(svgNS, "polyline");
      line.setAttribute("class", "line" + side);
      line.setAttribute("vector-effect", "non-scaling-stroke");  // an attribute: CSS lint knows no such property
      svg.append(line);
    }
    const caption = el("figcaption", "sr");
    caption.id = "trend-" + id;
    caption.append(el("span", "trend-title", t("trendTitle")), " ", el("span", "trend-summary"));
    figure.append(svg, caption);
    const now = Math.floor(Date.now() / 1000);
    const times = [];
    const sides = [[], []];
    const recent = [0, 0];
    for (const bucket of buckets) {
      const start = Math.floor(Date.parse(bucket.start) / 1000);
      if (times.length === 0) {
        times.push(start);
        sides[0].push(0);
        sides[1].push(0);
      }
      times.push(Math.min(start + 3600, now));
      sides[0].push(sides[0][sides[0].length - 1] + bucket.good1);
      sides[1].push(sides[1][sides[1].length - 1] + bucket.good2);
      if (start + 3600 > now - 86400) {
        recent[0] += bucket.good1;
        recent[1] += bucket.good2;
      }
    }
    Object.assign(figure.dataset, { times: times.join(","), good1: sides[0].join(","), good2: sides[1].join(","),
      recent1: String(recent[0]), recent2: String(recent[1]), now: String(now) });
    if (times.length > 0) drawTrend(figure);
    else {
      figure.classList.add("empty");  // shown with the first vote
      caption.lastChild.textContent = t("noVotes");
    }
    return figure;
  }
  // Board cards get their charts once they scroll into view, after the page has loaded: the
  // first screen's bytes and paint go to the pictures.
  function lazyTrends() {
    if (single || !("IntersectionObserver" in window)) return;
    const observer = new IntersectionObserver((entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        observer.unobserve(entry.target);
        const card = entry.target;
        fetch("/api/v1/posters/" + card.dataset.id + "/timeline?bucket=hour")
          .then((answer) => (answer.ok ? answer.json() : Promise.reject(new Error(String(answer.status)))))
          .then((timeline) => {
            if (card.querySelector(".trend")) return;
            card.querySelector(".meter").before(trendFigure(card.dataset.id, timeline.buckets));
          })
          .catch(() => {});  // a chart that does not come is only a chart less
      }
    }, { rootMargin: "200px" });
    const watch = () => {
      for (const card of board.querySelectorAll(".card:not([data-trend])")) {
        card.dataset.trend = "asked";
        observer.observe(card);
      }
    };
    watch();
    new MutationObserver(watch).observe(board, { childList: true });
  }
  if (document.readyState === "complete") lazyTrends();
  else window.addEventListener("load", lazyTrends);

  refreshTimes(board);
  setInterval(() => refreshTimes(board), 60000);
  shareButton();
  // A page kept in the back-forward cache must not keep its live feed open: the browser's few
  // connections to this server would stay taken and the next page wait for one. It reopens
  // (with a fresh snapshot) when the page is shown again.
  window.addEventListener("pagehide", () => {
    if (state.feed) state.feed.close();
    state.feed = null;
    body.classList.remove("live");
  });
  window.addEventListener("pageshow", (event) => { if (event.persisted) openFeed(); });
  updateMore();
  openFeed();
  body.classList.add("scripted");
})();
