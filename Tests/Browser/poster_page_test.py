#!/usr/bin/python3
"""A poster's own page (/p/ID) in a real browser: headless Debian chromium driven by selenium.

Run by Tests/TenbinEndToEndTests/PosterPageBrowserTests.swift against a real `tenbin serve` on
a loopback port, with the same arguments as board_test.py (whose helpers it uses):

    poster_page_test.py --url http://127.0.0.1:PORT --tenbin BIN --store DIR --fixtures DIR --out DIR

Each check prints one line; the first failure prints what was expected and saves a screenshot
and the page's HTML into --out, then exits 1. The phone-sized screenshot of the page is saved
as poster-phone.png in --out.
"""

import json
import os
import sys
import urllib.request

from selenium.webdriver.common.by import By

from board_test import BoardTest, Failure, WAIT_SECONDS, main as board_main


class PosterPageTest(BoardTest):
    def post(self, text, *tags):
        arguments = ["post", os.path.join(self.args.fixtures, "left.jpg"), os.path.join(self.args.fixtures, "right.png"),
                     "--text", text, "--json"]
        for tag in tags:
            arguments += ["--tag", tag]
        return json.loads(self.tenbin(*arguments))["id"]

    def open_poster(self, poster_id, live=True):
        self.driver.get(f"{self.args.url}/p/{poster_id}")
        self.wait("the poster's card", lambda: self.driver.find_elements(By.ID, f"poster-{poster_id}"))
        if live:
            self.wait("the live feed to open", lambda: "live" in self.driver.find_element(By.TAG_NAME, "body").get_attribute("class"))

    # ---- checks --------------------------------------------------------------------------
    def the_page_shows_the_card_with_tags_and_share(self):
        self.poster = self.post("共有のテスト：どっち？", "ねこ", "web")
        # A newer poster: the page's live counts must follow its own poster, not the top of the
        # board.
        self.post("newer")
        self.open_poster(self.poster)
        card = self.card(self.poster)
        if "共有のテスト：どっち？" not in card.text:
            raise Failure(f"the card does not show the question: {card.text!r}")
        tags = [link.get_attribute("href") for link in card.find_elements(By.CSS_SELECTOR, ".tags a")]
        if tags != [f"{self.args.url}/?q=%23%E3%81%AD%E3%81%93", f"{self.args.url}/?q=%23web"]:
            raise Failure(f"the hashtags do not link to their search: {tags}")
        own = card.find_element(By.CSS_SELECTOR, ".meta a").get_attribute("href")
        if own != f"{self.args.url}/p/{self.poster}":
            raise Failure(f"the card's #N link goes to {own}")
        share = self.driver.find_element(By.ID, "share")
        if not share.is_displayed():
            raise Failure("the Share button is not shown with JavaScript on")
        share.click()
        status = self.wait("the Share button to answer", lambda: self.driver.find_element(By.ID, "share-status").text)
        if "Link copied." != status and f"/p/{self.poster}" not in status:
            raise Failure(f"the Share button said {status!r}")
        violations = self.policy_violations()
        if violations:
            raise Failure("the page broke its Content-Security-Policy: " + "; ".join(violations))

    def counts_move_live_after_another_clients_vote(self):
        self.driver.execute_script("window.tenbinMarker = 'no reload'")
        shown = self.counts(self.poster)
        # Another client: a vote through the API, from outside the browser.
        request = urllib.request.Request(f"{self.args.url}/api/v1/posters/{self.poster}/votes", method="POST",
                                         data=json.dumps({"side": 1, "times": 4}).encode(),
                                         headers={"Content-Type": "application/json"})
        urllib.request.urlopen(request, timeout=WAIT_SECONDS).read()
        self.wait("the other client's 4 votes to arrive live", lambda: self.counts(self.poster) == [shown[0] + 4, shown[1]])
        # And this page's own vote.
        self.card(self.poster).find_element(By.CSS_SELECTOR, ".vote.side2").click()
        self.wait("the page's own vote to show", lambda: self.counts(self.poster) == [shown[0] + 4, shown[1] + 1])
        if self.driver.execute_script("return window.tenbinMarker") != "no reload":
            raise Failure("the page reloaded instead of updating live")

    def trend(self):
        """The chart's running totals (last point of each side) and its lines' points."""
        return self.driver.execute_script("""
            const figure = document.querySelector('#board .trend');
            if (!figure) return null;
            const last = (text) => Number(text.split(',').pop());
            return {good1: last(figure.dataset.good1), good2: last(figure.dataset.good2),
                    lines: Array.from(figure.querySelectorAll('polyline'), (line) => line.getAttribute('points')),
                    summary: figure.querySelector('figcaption').textContent,
                    name: figure.querySelector('svg').getAttribute('aria-labelledby')};""")

    def the_chart_shows_votes_over_time_and_live_votes_extend_it(self):
        self.open_poster(self.poster)
        shown = self.counts(self.poster)
        before = self.trend()
        if before is None:
            raise Failure("the poster page shows no votes-over-time chart")
        if [before["good1"], before["good2"]] != shown:
            raise Failure(f"the chart ends at {before['good1']}:{before['good2']}, the counts are {shown}")
        if f"left {shown[0]}, right {shown[1]}" not in before["summary"]:
            raise Failure(f"the chart's text alternative does not give the totals: {before['summary']!r}")
        if before["name"] != f"trend-{self.poster}":
            raise Failure(f"the chart is not named by its caption: {before['name']!r}")
        request = urllib.request.Request(f"{self.args.url}/api/v1/posters/{self.poster}/votes", method="POST",
                                         data=json.dumps({"side": 2, "times": 5}).encode(),
                                         headers={"Content-Type": "application/json"})
        urllib.request.urlopen(request, timeout=WAIT_SECONDS).read()
        after = self.wait("the live votes to extend the chart",
                          lambda: (lambda now: now if now and now["good2"] == shown[1] + 5 else None)(self.trend()))
        if after["good1"] != shown[0] or after["lines"][1] == before["lines"][1]:
            raise Failure(f"the chart did not redraw side 2's line: {before} -> {after}")
        if f"left {shown[0]}, right {shown[1] + 5}" not in after["summary"]:
            raise Failure(f"the chart's text did not follow the live votes: {after['summary']!r}")
        for dark in (False, True):
            self.emulate(390, dark=dark)
            self.accessibility("the poster page with its chart (" + ("dark" if dark else "light") + ")")
        self.emulate(None)

    def board_cards_get_compact_charts_after_the_page_loads(self):
        self.driver.get(self.args.url + "/")
        self.wait("the board's cards", lambda: self.driver.find_elements(By.CSS_SELECTOR, "#board .card"))
        if self.driver.execute_script("return document.readyState") != "complete" and \
                self.driver.find_elements(By.CSS_SELECTOR, "#board .trend"):
            raise Failure("a card's chart came before the page had loaded")
        card = f"#poster-{self.poster}"
        points = self.wait("the first screen's cards to get their compact charts", lambda: self.driver.execute_script(
            "const line = document.querySelector(arguments[0] + ' .trend.compact .line2');"
            "return line && line.getAttribute('points');", card))
        caption = self.driver.find_element(By.CSS_SELECTOR, f"{card} .trend.compact figcaption").get_attribute("textContent")
        if "Votes over time" not in caption and "投票の推移" not in caption:
            raise Failure(f"the compact chart has no text alternative: {caption!r}")
        if not points.strip():
            raise Failure("the compact chart has no line")
        self.accessibility("the board with compact charts")

    def without_javascript_a_form_vote_is_counted(self):
        self.driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
        try:
            self.open_poster(self.poster, live=False)
            if self.driver.find_element(By.ID, "share").is_displayed():
                raise Failure("the Share button is shown without JavaScript (it cannot work)")
            if not self.driver.find_element(By.ID, "share-link").is_displayed():
                raise Failure("the link to share is not shown without JavaScript")
            before = self.api(f"/api/v1/posters/{self.poster}")
            before = before.get("poster", before)
            self.card(self.poster).find_element(By.CSS_SELECTOR, ".vote.side1").click()
            self.wait("the page to come back at the poster",
                      lambda: self.driver.current_url.endswith(f"/p/{self.poster}#poster-{self.poster}"))
            self.wait("the counted vote on the page", lambda: self.counts(self.poster) == [before["good1"] + 1, before["good2"]])
        finally:
            self.driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})

    def a_missing_poster_is_a_page(self):
        self.driver.get(f"{self.args.url}/p/999999")
        heading = self.wait("the not-found page", lambda: self.driver.find_element(By.TAG_NAME, "h1").text)
        if heading != "Not found":
            raise Failure(f"the page for a missing poster says {heading!r}")

    def screenshot(self):
        self.open_poster(self.poster)
        for image in self.card(self.poster).find_elements(By.CSS_SELECTOR, "img"):
            self.wait("the images to load",
                      lambda image=image: self.driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", image))
        self.driver.save_screenshot(os.path.join(self.args.out, "poster-phone.png"))

    def a_tags_page_is_linked_and_accessible(self):
        # The poster page links its tag's own page: the poster, the tag's totals and its chart.
        self.open_poster(self.poster, live=False)
        link = next(link for link in self.driver.find_elements(By.CSS_SELECTOR, ".tag-links a") if "ねこ" in link.text)
        link.click()
        heading = self.wait("the tag's page", lambda: self.driver.find_element(By.CSS_SELECTOR, "h2.tag-title").text)
        if heading != "#ねこ":
            raise Failure(f"the tag's page is headed {heading!r}")
        if not self.driver.find_elements(By.ID, f"poster-{self.poster}"):
            raise Failure("the tag's page does not list the poster")
        totals = self.driver.find_element(By.CSS_SELECTOR, "main .status").text
        votes = self.api(f"/api/v1/posters/{self.poster}")
        votes = votes.get("poster", votes)
        if totals != f"1 poster · {votes['good1'] + votes['good2']} votes":
            raise Failure(f"the tag's totals say {totals!r}")
        if not self.driver.find_elements(By.CSS_SELECTOR, ".tag-chart svg rect"):
            raise Failure("the tag's page has no chart of its votes")
        self.accessibility("a tag's page")

    def checks(self):
        return [
            ("the poster page shows the card, its hashtags as search links and a Share button",
             self.the_page_shows_the_card_with_tags_and_share),
            ("counts move live after another client's vote", self.counts_move_live_after_another_clients_vote),
            ("the chart of votes over time shows the counts in words and live votes extend it; axe in both themes",
             self.the_chart_shows_votes_over_time_and_live_votes_extend_it),
            ("board cards get compact charts once the page has loaded; axe", self.board_cards_get_compact_charts_after_the_page_loads),
            ("without JavaScript, the vote form is counted and comes back to the page", self.without_javascript_a_form_vote_is_counted),
            ("a poster that is not there is answered with a page", self.a_missing_poster_is_a_page),
            ("a screenshot of the poster page (phone)", self.screenshot),
            ("the poster page links its tag's page: the poster, totals and a chart; axe", self.a_tags_page_is_linked_and_accessible),
        ]


if __name__ == "__main__":
    sys.exit(board_main(PosterPageTest))
