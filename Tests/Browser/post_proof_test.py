#!/usr/bin/python3
"""Proof of work for posting in a real browser: headless Debian chromium driven by selenium.

Run by Tests/TenbinEndToEndTests/PostProofBrowserTests.swift against a real `tenbin serve
--post-proof BITS` on a loopback port, with the same arguments as board_test.py (whose helpers
it uses). Each check prints one line; the first failure prints what was expected and saves a
screenshot and the page's HTML into --out, then exits 1. A screenshot of the form is saved as
proof-form.png in --out.

With `--measure N --bits B` it instead times N proofs of B bits in proof-worker.js with the CPU
slowed fourfold (DevTools' Emulation.setCPUThrottlingRate 4, a mid-range phone) and prints
one JSON line, {"bits", "seconds": [...], "tries": [...]}, for `make bench`.
"""

import json
import os
import sys
import time

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from board_test import BoardTest, Failure, main as board_main

# Records every text the proof's status line shows, from before the post is sent.
RECORD_STATUS = """
window.proofTexts = [];
const status = document.getElementById("proof-status");
new MutationObserver(() => { if (status.textContent) window.proofTexts.push(status.textContent); })
  .observe(status, { childList: true, characterData: true, subtree: true });
"""


class PostProofTest(BoardTest):
    def a_post_made_with_the_keyboard_proves_its_work_first(self):
        self.open_board()
        body = self.driver.find_element(By.TAG_NAME, "body")
        bits = body.get_attribute("data-post-proof")
        if not bits:
            raise Failure("the page does not tell its script that posts need a proof")
        status = self.driver.find_element(By.ID, "proof-status")
        if status.get_attribute("role") != "status":
            raise Failure("the proof's status line is not a live status for screen readers")
        meter = self.driver.find_element(By.ID, "proof-progress")
        if meter.get_attribute("aria-labelledby") != "proof-status" or meter.is_displayed():
            raise Failure("the proof's meter is not named by the status line, or is shown before any work")
        # Keyboard only: open the form, fill it, send it with Enter on the button.
        summary = self.driver.find_element(By.CSS_SELECTOR, "#compose summary")
        summary.send_keys(Keys.ENTER)
        self.wait("the form to open", lambda: self.driver.find_element(By.ID, "image1").is_displayed())
        self.driver.find_element(By.ID, "image1").send_keys(os.path.join(self.args.fixtures, "left.jpg"))
        self.driver.find_element(By.ID, "image2").send_keys(os.path.join(self.args.fixtures, "right.png"))
        self.driver.find_element(By.ID, "contents").send_keys("証明つきの投稿")
        self.driver.execute_script(RECORD_STATUS)
        self.driver.find_element(By.ID, "post-submit").send_keys(Keys.ENTER)

        def posted_card():
            first = self.driver.find_elements(By.CSS_SELECTOR, "#board .card")
            return first and "証明つきの投稿" in first[0].text and first[0]
        card = self.wait("the proved poster at the top of the board", posted_card)
        texts = self.driver.execute_script("return window.proofTexts")
        if not texts or not texts[0].startswith("Checking this post before sending it: 0%"):
            raise Failure(f"the status line did not say the work was under way: {texts}")
        if status.text or meter.is_displayed():
            raise Failure(f"the proof's status stays after the post: {status.text!r}")
        errors = self.driver.find_element(By.ID, "form-error").text
        if errors:
            raise Failure(f"the form shows an error after posting: {errors!r}")
        poster = self.api(f"/api/v1/posters/{card.get_attribute('data-id')}")
        if poster.get("poster", poster)["contents"] != "証明つきの投稿":
            raise Failure(f"the server stored another poster: {poster}")
        violations = self.policy_violations()
        if violations:
            raise Failure("the worker broke the Content-Security-Policy: " + "; ".join(violations))

    def the_worker_finds_a_nonce_the_server_accepts_and_refuses_twice(self):
        # The worker on its own, given a challenge fetched by the page; the proof is then sent
        # twice as the page would send it.
        outcome = self.driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            (async () => {
              const challenge = await (await fetch("/api/v1/post-proof")).json();
              const worker = new Worker(document.body.dataset.proofWorker);
              const answer = await new Promise((resolve) => {
                worker.onmessage = (m) => { if (m.data.proof || m.data.error) resolve(m.data); };
                worker.postMessage({ challenge: challenge.challenge, bits: challenge.bits });
              });
              worker.terminate();
              const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(answer.proof)));
              const statuses = [];
              for (let i = 0; i < 2; i += 1) {
                const form = new FormData();
                form.append("image1", new Blob([await (await fetch("/blobs/" + document.querySelector(".pair img").src.split("/thumbs/")[1].split("?")[0])).arrayBuffer()]), "a.jpg");
                form.append("image2", new Blob([await (await fetch("/blobs/" + document.querySelectorAll(".pair img")[1].src.split("/thumbs/")[1].split("?")[0])).arrayBuffer()]), "b.jpg");
                form.append("contents", "twice");
                const response = await fetch("/api/v1/posters", { method: "POST", body: form, headers: { "Tenbin-Proof": answer.proof } });
                statuses.push([response.status, (await response.json()).error?.kind || ""]);
              }
              done({ proof: answer.proof, bits: challenge.bits, first: Array.from(digest.slice(0, 4)), statuses });
            })().catch((error) => done({ error: String(error) }));
        """)
        if "error" in outcome:
            raise Failure(f"the worker failed: {outcome['error']}")
        zeros = 0
        for byte in outcome["first"]:
            if byte == 0:
                zeros += 8
                continue
            zeros += 8 - byte.bit_length()
            break
        if zeros < outcome["bits"]:
            raise Failure(f"the worker's proof has {zeros} leading zero bits, fewer than {outcome['bits']}")
        if outcome["statuses"] != [[201, ""], [409, "proof_reused"]]:
            raise Failure(f"the proof posted twice was answered {outcome['statuses']} (201, then 409 proof_reused)")

    def without_javascript_the_form_says_posting_needs_it(self):
        self.driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
        try:
            self.driver.get(self.args.url + "/")
            self.driver.find_element(By.CSS_SELECTOR, "#compose summary").click()
            note = self.wait("the form's word about JavaScript",
                             lambda: [p for p in self.driver.find_elements(By.CSS_SELECTOR, ".needs-script") if p.is_displayed()])
            if "Posting on this board needs JavaScript" not in note[0].text:
                raise Failure(f"the form says {note[0].text!r}")
            self.driver.save_screenshot(os.path.join(self.args.out, "proof-form.png"))
        finally:
            self.driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})

    def checks(self):
        return [
            ("a post made with the keyboard proves its work in a worker, said in a live status", self.a_post_made_with_the_keyboard_proves_its_work_first),
            ("the worker's proof has the bits, posts once and is refused the second time",
             self.the_worker_finds_a_nonce_the_server_accepts_and_refuses_twice),
            ("without JavaScript the form says posting needs it", self.without_javascript_the_form_says_posting_needs_it),
        ]

    def measure(self, count, bits):
        """Times `count` proofs of `bits` with the CPU slowed fourfold; prints one JSON line."""
        self.driver.get(self.args.url + "/")
        self.driver.set_script_timeout(600)
        self.driver.execute_cdp_cmd("Emulation.setCPUThrottlingRate", {"rate": 4})
        seconds, tries = [], []
        for _ in range(count):
            outcome = self.driver.execute_async_script("""
                const [bits, done] = [arguments[0], arguments[arguments.length - 1]];
                (async () => {
                  const challenge = await (await fetch("/api/v1/post-proof")).json();
                  if (challenge.bits !== bits) throw new Error("the server asks for " + challenge.bits + " bits");
                  const worker = new Worker(document.body.dataset.proofWorker);
                  const started = performance.now();
                  const answer = await new Promise((resolve) => {
                    worker.onmessage = (m) => { if (m.data.proof || m.data.error) resolve(m.data); };
                    worker.postMessage({ challenge: challenge.challenge, bits: challenge.bits });
                  });
                  worker.terminate();
                  done({ seconds: (performance.now() - started) / 1000, tries: answer.tries, error: answer.error });
                })().catch((error) => done({ error: String(error) }));
            """, bits)
            if outcome.get("error"):
                raise Failure(f"a proof failed: {outcome['error']}")
            seconds.append(outcome["seconds"])
            tries.append(outcome["tries"])
        self.driver.execute_cdp_cmd("Emulation.setCPUThrottlingRate", {"rate": 1})
        print(json.dumps({"bits": bits, "seconds": seconds, "tries": tries}), flush=True)


if __name__ == "__main__":
    if "--measure" in sys.argv:
        at = sys.argv.index("--measure")
        count, bits = int(sys.argv[at + 1]), int(sys.argv[sys.argv.index("--bits") + 1])
        del sys.argv[at:at + 2]
        del sys.argv[sys.argv.index("--bits"):sys.argv.index("--bits") + 2]
        PostProofTest.checks = lambda self: [("proofs timed at 4× CPU throttling", lambda: self.measure(count, bits))]
    sys.exit(board_main(PostProofTest))
