#!/usr/bin/python3
"""The web page in a real browser: headless Debian chromium driven by selenium.

Run by Tests/TenbinEndToEndTests/BrowserTests.swift against a real `tenbin serve` on a
loopback port, over a store already holding the sample posters:

    board_test.py --url http://127.0.0.1:PORT --tenbin BIN --store DIR --fixtures DIR --out DIR

Each check prints one line; the first failure prints what was expected and saves a screenshot
and the page's HTML into --out, then exits 1. The phone-sized screenshot of the board is
saved as board-phone.png in --out.
"""

import argparse
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

WAIT_SECONDS = 30  # a generous bound for a loaded machine, not a timing assertion


class Failure(Exception):
    pass


class BoardTest:
    def __init__(self, args):
        self.args = args
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=412,915", "--force-device-scale-factor=2", "--lang=ja",
                     "--no-first-run", "--hide-scrollbars", "--disable-extensions", "--disable-background-networking"):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
        self.driver.set_page_load_timeout(WAIT_SECONDS)

    # ---- helpers -------------------------------------------------------------------------
    def check(self, name, step):
        started = time.monotonic()
        step()
        print(f"ok   {name} ({time.monotonic() - started:.1f} s)", flush=True)

    def wait(self, what, condition):
        try:
            return WebDriverWait(self.driver, WAIT_SECONDS, poll_frequency=0.05).until(lambda _: condition())
        except Exception as error:  # TimeoutException, or the condition's own error
            raise Failure(f"waited {WAIT_SECONDS} s for {what}: {error.__class__.__name__} {error}") from None

    def api(self, path):
        with urllib.request.urlopen(self.args.url + path, timeout=WAIT_SECONDS) as response:
            return json.loads(response.read())

    def card(self, poster_id):
        return self.driver.find_element(By.ID, f"poster-{poster_id}")

    def counts(self, poster_id):
        buttons = self.card(poster_id).find_elements(By.CSS_SELECTOR, ".vote")
        return [int(b.find_element(By.CSS_SELECTOR, ".count").text) for b in buttons]

    def fill_class(self, poster_id):
        return self.card(poster_id).find_element(By.CSS_SELECTOR, ".meter .fill").get_attribute("class")

    def tenbin(self, *arguments):
        run = subprocess.run([self.args.tenbin, "--store", self.args.store, *arguments],
                             capture_output=True, text=True, timeout=WAIT_SECONDS)
        if run.returncode != 0:
            raise Failure(f"tenbin {' '.join(arguments)} exited {run.returncode}: {run.stderr.strip()}")
        return run.stdout

    def policy_violations(self):
        return [entry["message"] for entry in self.driver.get_log("browser")
                if "Content Security Policy" in entry["message"] or "Refused to" in entry["message"]]

    def open_board(self, path="/"):
        self.driver.get(self.args.url + path)
        self.wait("the board's cards", lambda: self.driver.find_elements(By.CSS_SELECTOR, "#board .card"))
        self.wait("the live feed to open", lambda: "live" in self.driver.find_element(By.TAG_NAME, "body").get_attribute("class"))

    # ---- checks --------------------------------------------------------------------------
    def board_loads(self):
        self.open_board()
        cards = self.driver.find_elements(By.CSS_SELECTOR, "#board .card")
        if len(cards) < 10:
            raise Failure(f"expected the 10 sample posters on the board, found {len(cards)}")
        text = self.driver.find_element(By.ID, "board").text
        if "ｷﾉｺ派？タケノコ派？" not in text:
            raise Failure("the Japanese question of the kinoko/takenoko poster is not on the board")
        first = cards[0].find_element(By.CSS_SELECTOR, ".pair img")
        if not first.get_attribute("alt") or "?w=" not in (first.get_attribute("srcset") or ""):
            raise Failure("the first card's image has no alt text or no srcset")
        self.wait("the first card's images to load",
                  lambda: self.driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", first))
        violations = self.policy_violations()
        if violations:
            raise Failure("the page broke its Content-Security-Policy: " + "; ".join(violations))

    def vote_changes_the_bar(self):
        poster_id = int(self.driver.find_element(By.CSS_SELECTOR, "#board .card").get_attribute("data-id"))
        before = self.api(f"/api/v1/posters/{poster_id}")
        before = before.get("poster", before)
        shown, bar = self.counts(poster_id), self.fill_class(poster_id)
        self.driver.execute_script("window.tenbinMarker = 'no reload'")
        self.card(poster_id).find_element(By.CSS_SELECTOR, ".vote.side1").click()
        self.wait("the left count to go up by one", lambda: self.counts(poster_id) == [shown[0] + 1, shown[1]])
        self.wait("the vote bar to change", lambda: self.fill_class(poster_id) != bar)
        # The keyboard votes too: focus the right button and press Enter.
        button = self.card(poster_id).find_element(By.CSS_SELECTOR, ".vote.side2")
        self.driver.execute_script("arguments[0].focus()", button)
        button.send_keys(Keys.ENTER)
        self.wait("the right count to go up by one", lambda: self.counts(poster_id) == [shown[0] + 1, shown[1] + 1])

        def committed():
            after = self.api(f"/api/v1/posters/{poster_id}")
            after = after.get("poster", after)
            return after["good1"] == before["good1"] + 1 and after["good2"] == before["good2"] + 1
        self.wait("the server to have counted both votes", committed)
        if self.driver.execute_script("return window.tenbinMarker") != "no reload":
            raise Failure("voting with the script navigated away (the vote form was submitted as well)")
        self.vote_poster = poster_id

    def a_vote_without_javascript_is_counted(self):
        # A tap before app.js arrives on a slow network, or a browser without scripts: the
        # vote buttons are a plain form, answered with a redirect back to the poster.
        self.driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
        try:
            self.driver.get(self.args.url + "/?sort=popular")
            card = self.driver.find_elements(By.CSS_SELECTOR, "#board .card")[1]
            poster_id = int(card.get_attribute("data-id"))
            before = self.api(f"/api/v1/posters/{poster_id}")
            before = before.get("poster", before)
            card.find_element(By.CSS_SELECTOR, ".vote.side2").click()
            self.wait("the page to come back at the poster",
                      lambda: self.driver.current_url.endswith(f"/?sort=popular#poster-{poster_id}"))
            self.wait("the counted vote on the page", lambda: self.counts(poster_id) == [before["good1"], before["good2"] + 1])
            after = self.api(f"/api/v1/posters/{poster_id}")
            after = after.get("poster", after)
            if (after["good1"], after["good2"]) != (before["good1"], before["good2"] + 1):
                raise Failure(f"the server counted {after['good1']}:{after['good2']} after one vote on {before['good1']}:{before['good2']}")
        finally:
            self.driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})

    def vote_from_another_process_arrives(self):
        poster_id = self.vote_poster
        shown = self.counts(poster_id)
        self.tenbin("vote", str(poster_id), "2", "--times", "5")
        self.wait("the other process's 5 votes to arrive live", lambda: self.counts(poster_id) == [shown[0], shown[1] + 5])
        if self.driver.execute_script("return window.tenbinMarker") != "no reload":
            raise Failure("the page reloaded instead of updating live")

    def half_width_search_finds_full_width(self):
        box = self.driver.find_element(By.ID, "search")
        box.click()
        box.send_keys("ﾀｹﾉｺ")

        def only_takenoko():
            cards = self.driver.find_elements(By.CSS_SELECTOR, "#board .card")
            return len(cards) == 1 and "タケノコ" in cards[0].text
        self.wait("only the タケノコ poster to be shown", only_takenoko)
        url = self.driver.current_url
        if "q=%EF%BE%80%EF%BD%B9%EF%BE%89%EF%BD%BA" not in url:
            raise Failure(f"the query is not kept in the URL: {url}")
        # The shared URL renders the same search on the server.
        self.open_board("/?q=%EF%BE%80%EF%BD%B9%EF%BE%89%EF%BD%BA")
        self.wait("the shared search URL to show the タケノコ poster", only_takenoko)
        box = self.driver.find_element(By.ID, "search")
        if box.get_attribute("value") != "ﾀｹﾉｺ":
            raise Failure("the search box does not show the query from the URL")
        box.send_keys(Keys.ESCAPE)
        self.wait("the whole board to come back",
                  lambda: len(self.driver.find_elements(By.CSS_SELECTOR, "#board .card")) >= 10)

    def post_two_images_through_the_form(self):
        self.open_board()
        self.driver.find_element(By.CSS_SELECTOR, "#compose summary").click()
        fixtures = self.args.fixtures
        self.driver.find_element(By.ID, "image1").send_keys(os.path.join(fixtures, "left.jpg"))
        self.driver.find_element(By.ID, "image2").send_keys(os.path.join(fixtures, "right.png"))
        for side in (1, 2):
            self.wait(f"the preview of image {side}",
                      lambda side=side: self.driver.find_element(By.ID, f"image{side}-preview").is_displayed())
        self.driver.find_element(By.ID, "contents").send_keys("ブラウザから投稿：どっち？")
        self.driver.find_element(By.ID, "hashtags").send_keys("#テスト web")
        self.driver.find_element(By.ID, "post-submit").click()

        def posted_card():
            first = self.driver.find_elements(By.CSS_SELECTOR, "#board .card")
            return first and "ブラウザから投稿：どっち？" in first[0].text and first[0]
        card = self.wait("the new poster at the top of the board", posted_card)
        poster = self.api(f"/api/v1/posters/{card.get_attribute('data-id')}")
        poster = poster.get("poster", poster)
        if poster["hashtags"] != ["テスト", "web"] or poster["contents"] != "ブラウザから投稿：どっち？":
            raise Failure(f"the server stored another poster: {poster}")
        cards = self.driver.find_elements(By.ID, f"poster-{poster['id']}")
        if len(cards) != 1:
            raise Failure(f"the new poster is shown {len(cards)} times")

    def bad_files_show_errors_next_to_their_field(self):
        self.driver.find_element(By.CSS_SELECTOR, "#compose summary").click()
        self.wait("the form to open", lambda: self.driver.find_element(By.ID, "image1").is_displayed())
        # Not an image at all: said as soon as it is picked.
        self.driver.find_element(By.ID, "image1").send_keys(os.path.join(self.args.fixtures, "notes.txt"))
        message = self.wait("an error next to the left image picker",
                            lambda: self.driver.find_element(By.ID, "image1-error").text)
        if "notes.txt" not in message:
            raise Failure(f"the error does not name the file: {message!r}")
        # An image the server refuses (30000×30000 pixels in a small PNG): its answer goes next
        # to the field too.
        self.driver.find_element(By.ID, "image1").clear()
        self.driver.find_element(By.ID, "image1").send_keys(os.path.join(self.args.fixtures, "huge.png"))
        self.driver.find_element(By.ID, "image2").send_keys(os.path.join(self.args.fixtures, "right.png"))
        self.wait("the left error to clear", lambda: not self.driver.find_element(By.ID, "image1-error").text)
        before = len(self.driver.find_elements(By.CSS_SELECTOR, "#board .card"))
        self.driver.find_element(By.ID, "post-submit").click()
        message = self.wait("the server's error next to the left image picker",
                            lambda: self.driver.find_element(By.ID, "image1-error").text)
        print(f"     server said: {message}", flush=True)
        if self.driver.find_element(By.ID, "image1").get_attribute("aria-invalid") != "true":
            raise Failure("the left picker is not marked invalid")
        if len(self.driver.find_elements(By.CSS_SELECTOR, "#board .card")) != before:
            raise Failure("a refused poster appeared on the board")
        # Two photos over the server's upload limit (25 MB): said before a byte is sent, since a
        # phone on a slow network would spend minutes uploading them to be refused.
        for name in ("big-left.jpg", "big-right.jpg"):
            with open(os.path.join(self.args.fixtures, name), "wb") as big:
                big.write(b"\xff\xd8\xff\xe0" + bytes(13 * 1024 * 1024))
        posts = self.posts_seen()
        for side, name in (("image1", "big-left.jpg"), ("image2", "big-right.jpg")):
            self.driver.find_element(By.ID, side).clear()
            self.driver.find_element(By.ID, side).send_keys(os.path.join(self.args.fixtures, name))
        self.wait("the left error to clear", lambda: not self.driver.find_element(By.ID, "image1-error").text)
        self.driver.find_element(By.ID, "post-submit").click()
        message = self.wait("the size error next to an image picker",
                            lambda: self.driver.find_element(By.ID, "image1-error").text
                            or self.driver.find_element(By.ID, "image2-error").text)
        if "26.0 MB together" not in message or "at most 25.0 MB" not in message:
            raise Failure(f"the error does not say the sizes: {message!r}")
        if self.posts_seen() != posts:
            raise Failure("the images were sent to the server anyway")

    def posts_seen(self):
        with urllib.request.urlopen(self.args.url + "/metrics", timeout=WAIT_SECONDS) as response:
            text = response.read().decode()
        prefix = 'tenbin_http_requests_total{route="POST /api/v1/posters"'
        return sum(int(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(prefix))

    def hostile_text_is_shown_as_text(self):
        self.open_board()
        question = '<img src=x onerror="window.pwned=1">\u202e逆\x1b[2J'
        self.tenbin("post", os.path.join(self.args.fixtures, "left.jpg"), os.path.join(self.args.fixtures, "right.png"),
                    "--text", question, "--tag", "<b>bold</b>")
        shown = '<img src=x onerror="window.pwned=1">\ufffd逆\u241b[2J'

        def check(where):
            card = self.driver.find_element(By.CSS_SELECTOR, "#board .card")
            text = card.find_element(By.CSS_SELECTOR, ".question").text
            if text != shown:
                raise Failure(f"{where}: the question shows {text!r}, not {shown!r}")
            if card.find_elements(By.CSS_SELECTOR, ".question *, .tags b") or self.driver.execute_script("return window.pwned"):
                raise Failure(f"{where}: user text became markup")
            if card.find_element(By.CSS_SELECTOR, ".tags a").text != "#<b>bold</b>":
                raise Failure(f"{where}: the hashtag is not shown as written")
        self.wait("the hostile poster to arrive live", lambda: "onerror" in self.driver.find_element(By.CSS_SELECTOR, "#board .card").text)
        check("built by the script")
        # The server's own HTML, before any script runs.
        with urllib.request.urlopen(self.args.url + "/", timeout=WAIT_SECONDS) as response:
            html = response.read().decode("utf-8")
        escaped = '&lt;img src=x onerror=&quot;window.pwned=1&quot;&gt;\ufffd逆\u241b[2J'
        if escaped not in html or "#&lt;b&gt;bold&lt;/b&gt;" not in html or "<b>bold" in html or "\u202e" in html:
            raise Failure("the server's HTML does not show the hostile question and hashtag escaped and neutralised")
        self.open_board()
        check("rendered by the server and kept by the script")

    def the_report_menu_reports_a_poster(self):
        self.open_board()
        cards = self.driver.find_elements(By.CSS_SELECTOR, "#board .card")
        bare = [card.get_attribute("data-id") for card in cards if not card.find_elements(By.CSS_SELECTOR, "details.report")]
        if bare:
            raise Failure(f"cards without a report menu: {bare}")
        card = cards[-1]
        poster_id = card.get_attribute("data-id")
        menu = card.find_element(By.CSS_SELECTOR, "details.report")
        if menu.find_element(By.CSS_SELECTOR, "form").is_displayed():
            raise Failure("the report form shows before its menu is opened")
        menu.find_element(By.TAG_NAME, "summary").click()
        form = menu.find_element(By.CSS_SELECTOR, "form")
        self.wait("the report form to open", form.is_displayed)
        Select(form.find_element(By.NAME, "reason")).select_by_value("illegal")
        form.find_element(By.NAME, "note").send_keys("ブラウザから")
        self.driver.execute_script("window.tenbinMarker = 'no reload'")
        form.find_element(By.TAG_NAME, "button").click()
        said = form.find_element(By.CSS_SELECTOR, ".report-status")
        self.wait("the menu to say the report was sent", lambda: said.text == "Thank you: reported.")
        if self.driver.execute_script("return window.tenbinMarker") != "no reload":
            raise Failure("sending a report reloaded the page")
        shown = json.loads(self.tenbin("moderation", "show", poster_id, "--json"))
        if [(r["reason"], r["note"]) for r in shown["reports"]] != [("illegal", "ブラウザから")]:
            raise Failure(f"the store holds other reports of poster {poster_id}: {shown['reports']}")
        # The same browser (one address) reporting again is told so in place.
        form.find_element(By.TAG_NAME, "button").click()
        self.wait("the menu to say it was reported already", lambda: "already" in said.text)
        self.tenbin("moderation", "restore", poster_id)

    def the_admin_page_works_on_a_phone(self):
        poster_id = self.driver.find_element(By.CSS_SELECTOR, "#board .card").get_attribute("data-id")
        self.tenbin("moderation", "hide", poster_id, "--reason", "for the browser test")
        # A phone's viewport (headless Chromium's window is never narrower than 500 px).
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
        try:
            self.admin_page_steps(poster_id)
        finally:
            self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    def admin_page_steps(self, poster_id):
        self.driver.get(self.args.url + "/admin")
        token = self.driver.find_element(By.NAME, "token")
        token.send_keys("browser-test-admin-token-0123456789")
        token.submit()
        self.wait("the queue after logging in", lambda: self.driver.find_elements(By.CSS_SELECTOR, ".admin-queue"))
        cookies = {cookie["name"]: cookie for cookie in self.driver.get_cookies()}
        session = cookies.get("tenbin_admin")
        if not session or not session.get("httpOnly") or session.get("sameSite") != "Strict":
            raise Failure(f"the session cookie is not HttpOnly and SameSite=Strict: {session}")
        if self.driver.execute_script("return document.cookie").find("tenbin_admin") >= 0:
            raise Failure("the page's script can read the session cookie")
        item = self.driver.find_element(By.ID, f"poster-{poster_id}")
        width = self.driver.execute_script("return document.documentElement.scrollWidth")
        viewport = self.driver.execute_script("return window.innerWidth")
        if viewport > 400:
            raise Failure(f"the phone's viewport is {viewport} px wide")
        if width > viewport:
            raise Failure(f"the moderation page scrolls sideways on a phone: {width} px in {viewport}")
        button = item.find_element(By.XPATH, ".//button[text()='Restore']")
        if button.size["height"] < 44:
            raise Failure(f"the Restore button is {button.size['height']} px high, under a thumb's 44")
        item.find_element(By.NAME, "reason").send_keys("looks fine")
        button.click()
        self.wait("the poster to leave the queue", lambda: not self.driver.find_elements(By.ID, f"poster-{poster_id}"))
        log = self.driver.find_element(By.CSS_SELECTOR, ".admin-log").text
        if f"token restore #{poster_id}: looks fine" not in log:
            raise Failure(f"the log does not show the restore: {log!r}")
        violations = self.policy_violations()
        if violations:
            raise Failure("the moderation page broke its Content-Security-Policy: " + "; ".join(violations))
        self.api(f"/api/v1/posters/{poster_id}")  # shown again: no 404

    def scrolling_loads_more_and_deletions_arrive_live(self):
        # 16 more posters make 28: more than one page of 20.
        for index in range(16):
            self.tenbin("post", os.path.join(self.args.fixtures, "left.jpg"), os.path.join(self.args.fixtures, "right.png"),
                        "--text", f"スクロール {index}")
        self.open_board()
        def ids():  # read in one script, so a card removed meanwhile cannot go stale half-way
            return self.driver.execute_script(
                "return Array.from(document.querySelectorAll('#board .card'), (card) => card.dataset.id)")
        if len(ids()) != 20:
            raise Failure(f"the first page should hold 20 posters, it holds {len(ids())}")
        self.driver.execute_script("document.getElementById('more').scrollIntoView()")
        self.wait("the next page to load as the end comes near", lambda: len(ids()) == 28)
        if len(set(ids())) != 28:
            raise Failure(f"a poster is shown twice after scrolling: {ids()}")
        menus = self.driver.execute_script("return document.querySelectorAll('#board .card details.report').length")
        if menus != 28:
            raise Failure(f"only {menus} of the 28 cards have a report menu after scrolling")
        if self.driver.find_element(By.ID, "more").is_displayed():
            raise Failure("the More link is still shown after the last page")
        # A poster deleted by another process disappears without a reload.
        victim = ids()[3]
        self.driver.execute_script("window.tenbinMarker = 'no reload'")
        self.tenbin("delete", victim)
        self.wait(f"poster {victim} to disappear", lambda: victim not in ids())
        if self.driver.execute_script("return window.tenbinMarker") != "no reload":
            raise Failure("the page reloaded instead of updating live")

    def screenshots(self):
        # Votes that make the bars worth looking at, then the Popular tab: Japanese questions
        # and hashtags on top.
        for poster_id, side, times in ((8, 1, 12), (8, 2, 9), (6, 2, 7), (6, 1, 3), (7, 1, 5), (1, 2, 4), (1, 1, 2)):
            self.tenbin("vote", str(poster_id), str(side), "--times", str(times))
        self.open_board("/?sort=popular")
        first = self.driver.find_element(By.CSS_SELECTOR, "#board .card")
        if "ｷﾉｺ派？タケノコ派？" not in first.text:
            raise Failure(f"the most voted poster is not first on the Popular tab: {first.text!r}")
        for image in self.driver.find_elements(By.CSS_SELECTOR, "#board .card img")[:4]:
            self.wait("the top images to load",
                      lambda image=image: self.driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", image))
        self.driver.save_screenshot(os.path.join(self.args.out, "board-phone.png"))
        self.driver.set_window_size(1280, 900)
        self.driver.save_screenshot(os.path.join(self.args.out, "board-desktop.png"))

    def run(self):
        checks = [
            ("the board loads with Japanese text, thumbnails and no policy violation", self.board_loads),
            ("a vote (click and keyboard) changes the bar and is committed", self.vote_changes_the_bar),
            ("a vote cast by another process arrives live", self.vote_from_another_process_arrives),
            ("a half-width katakana query finds the full-width poster, kept in the URL", self.half_width_search_finds_full_width),
            ("two images posted through the form appear on the board", self.post_two_images_through_the_form),
            ("bad files show errors next to their field", self.bad_files_show_errors_next_to_their_field),
            ("hostile user text is shown as text, by the script and by the server", self.hostile_text_is_shown_as_text),
            ("the report menu on a card sends a report and says so in place", self.the_report_menu_reports_a_poster),
            ("the /admin page logs in with the token and restores a hidden poster at phone size", self.the_admin_page_works_on_a_phone),
            ("scrolling loads the next page; a deletion by another process arrives live",
             self.scrolling_loads_more_and_deletions_arrive_live),
            ("screenshots of the Popular tab (phone and desktop)", self.screenshots),
            ("without JavaScript, a vote tap is counted and comes back to the poster", self.a_vote_without_javascript_is_counted),
        ]
        try:
            for name, step in checks:
                try:
                    self.check(name, step)
                except Failure as failure:
                    print(f"FAIL {name}: {failure}", flush=True)
                    self.driver.save_screenshot(os.path.join(self.args.out, "failure.png"))
                    with open(os.path.join(self.args.out, "failure.html"), "w", encoding="utf-8") as page:
                        page.write(self.driver.page_source)
                    for entry in self.driver.get_log("browser"):
                        print(f"     console: {entry['message']}", flush=True)
                    return 1
            return 0
        finally:
            self.driver.quit()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("url", "tenbin", "store", "fixtures", "out"):
        parser.add_argument("--" + name, required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    try:
        urllib.request.urlopen(args.url + "/", timeout=WAIT_SECONDS).read()
    except (urllib.error.URLError, OSError) as error:
        print(f"FAIL the server at {args.url} cannot be reached: {error}", flush=True)
        return 1
    return BoardTest(args).run()


if __name__ == "__main__":
    sys.exit(main())
