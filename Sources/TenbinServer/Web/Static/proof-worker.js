// proof-worker.js: finds a post's proof of work off the page's thread (docs/moderation.md).
// Given {challenge, bits}, it tries nonces 0, 1, 2 … until the SHA-256 of "CHALLENGE:NONCE"
// begins with `bits` zero bits, telling the page how many it has tried every so often, and
// answers {proof, tries}. The server checks the same rule (PostProof.swift).
"use strict";
(() => {
  const encoder = new TextEncoder();

  function leadingZeroBits(bytes) {
    let count = 0;
    for (const byte of bytes) {
      if (byte === 0) { count += 8; continue; }
      return count + Math.clz32(byte) - 24;
    }
    return count;
  }

  async function solve(challenge, bits) {
    // Digests are asked for in batches: each is a promise, and waiting for one at a time costs
    // more than the hash itself.
    const batch = 512;
    let reported = Date.now();
    for (let start = 0; ; start += batch) {
      const nonces = Array.from({ length: batch }, (unused, index) => String(start + index));
      const digests = await Promise.all(
        nonces.map((nonce) => crypto.subtle.digest("SHA-256", encoder.encode(challenge + ":" + nonce))));
      for (let index = 0; index < batch; index += 1) {
        if (leadingZeroBits(new Uint8Array(digests[index])) >= bits) {
          return { proof: challenge + ":" + nonces[index], tries: start + index + 1 };
        }
      }
      if (Date.now() - reported >= 250) {
        reported = Date.now();
        self.postMessage({ tries: start + batch });
      }
    }
  }

  self.onmessage = async (message) => {
    const { challenge, bits } = message.data;
    try {
      self.postMessage(await solve(String(challenge), Number(bits)));
    } catch (failure) {
      self.postMessage({ error: String(failure && failure.message ? failure.message : failure) });
    }
  };
})();
