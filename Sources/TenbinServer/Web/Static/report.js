// report.js: the report menu on each card (WebPage+Report.swift renders it). Sends the form as
// JSON and says in place how it went; adds the menu to cards app.js adds later. User text only
// goes through textContent, never through HTML.
"use strict";
(() => {
  const reasons = [["spam", "Spam"], ["abuse", "Abusive"], ["illegal", "Illegal"], ["other", "Something else"]];
  const noteLimit = 500;

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // The same markup as the server's, for a card that has none.
  function menu(id) {
    const details = el("details", "report");
    const summary = el("summary", "", "Report");
    summary.setAttribute("aria-label", "Report poster " + id);
    const form = el("form", "report-form");
    form.method = "post";
    form.action = "/api/v1/posters/" + id + "/reports";
    const reasonLabel = el("label", "", "Reason ");
    const select = el("select");
    select.name = "reason";
    for (const [value, text] of reasons) {
      const option = el("option", "", text);
      option.value = value;
      select.append(option);
    }
    reasonLabel.append(select);
    const noteLabel = el("label", "", "Note ");
    const note = el("input");
    note.name = "note";
    note.maxLength = noteLimit;
    note.autocomplete = "off";
    noteLabel.append(note);
    const button = el("button", "", "Send report");
    button.type = "submit";
    const said = el("span", "report-status");
    said.setAttribute("role", "status");
    form.append(reasonLabel, noteLabel, button, " ", said);
    details.append(summary, form);
    return details;
  }

  function addMenus(root) {
    for (const card of root.querySelectorAll("li.card[data-id]")) {
      if (card.querySelector("details.report")) continue;
      const article = card.querySelector("article") || card;
      article.append(menu(card.dataset.id));
    }
  }

  async function send(form) {
    const said = form.querySelector(".report-status");
    const button = form.querySelector("button");
    button.disabled = true;
    said.textContent = "Sending…";
    try {
      const response = await fetch(form.action, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Accept": "application/json" },
        body: JSON.stringify({ reason: form.elements.reason.value, note: form.elements.note.value }),
        credentials: "same-origin",
      });
      if (response.ok) {
        said.textContent = "Thank you: reported.";
        form.elements.note.value = "";
        return;
      }
      let message = "";
      try {
        const data = await response.json();
        message = data && data.error && data.error.message;
      } catch (ignored) {
        message = "";
      }
      said.textContent = message || ("the server answered " + response.status);
    } catch (failure) {
      said.textContent = "could not reach the server: " + failure.message;
    } finally {
      button.disabled = false;
    }
  }

  document.addEventListener("submit", (submitted) => {
    const form = submitted.target;
    if (!(form instanceof HTMLFormElement) || !form.classList.contains("report-form")) return;
    submitted.preventDefault();
    send(form);
  });

  addMenus(document);
  const board = document.getElementById("board");
  if (board) new MutationObserver(() => addMenus(board)).observe(board, { childList: true, subtree: true });
})();
