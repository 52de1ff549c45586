// The table's live stream (GET /v1/tables/{id}/stream) read with fetch and a stream reader, since EventSource
// cannot send the Authorization header; reconnects with Last-Event-ID (or ?after= before the first message).

import { authHeaders, record, sleep } from "./api.js";

export function follow(tableId, afterVersion, onEvent, onState) {
  const controller = new AbortController();
  let lastId = null;
  let after = afterVersion;
  let stopped = false;

  function handle(block) {
    let id = null;
    const data = [];
    for (const line of block.split(/\r?\n/)) {
      if (line === "" || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "id") id = value;
      else if (field === "data") data.push(value);
    }
    if (id !== null) lastId = id;
    if (data.length === 0) return;
    const text = data.join("\n");
    record("sse", `/v1/tables/${tableId}/stream`, text);
    const event = JSON.parse(text);
    if (typeof event.position === "number") after = event.position;
    onEvent(event);
  }

  async function run() {
    let delay = 500;
    while (!stopped) {
      try {
        const headers = authHeaders({ Accept: "text/event-stream" });
        let url = `/v1/tables/${tableId}/stream`;
        if (lastId) headers.set("Last-Event-ID", lastId);
        else if (after !== null && after !== undefined) url += `?after=${after}`;
        const response = await fetch(url, { headers, signal: controller.signal, cache: "no-store", credentials: "omit" });
        if (!response.ok) {
          record("http", url, await response.text());
          onState("offline", `the stream answered ${response.status}`);
          const wait = Number(response.headers.get("Retry-After"));
          await sleep(wait > 0 ? wait * 1000 : delay);
          delay = Math.min(delay * 2, 10000);
          continue;
        }
        onState("live");
        delay = 500;
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let match;
          while ((match = /\r?\n\r?\n/.exec(buffer)) !== null) {
            handle(buffer.slice(0, match.index));
            buffer = buffer.slice(match.index + match[0].length);
          }
        }
      } catch (error) {
        if (stopped) return;
      }
      if (stopped) return;
      onState("reconnecting");
      await sleep(delay);
    }
  }

  run();
  return () => {
    stopped = true;
    controller.abort();
  };
}
