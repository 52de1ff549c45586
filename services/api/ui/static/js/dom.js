// Small helpers to build the page's elements (no HTML strings: every text goes in as text).

export function h(tag, attributes, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(element.dataset, value);
    else if (value === true) element.setAttribute(name, "");
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

export function append(element, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return element;
}

export function clear(element) {
  while (element.firstChild) element.firstChild.remove();
  return element;
}

const status = () => document.getElementById("status-message");
const alarm = () => document.getElementById("alert-message");

// Messages for screen readers and eyes: an aria-live status, and a role=alert for problems.
export function announce(text) {
  alarm().textContent = "";
  status().textContent = text;
}

export function warn(text) {
  status().textContent = "";
  alarm().textContent = text;
}

export function shortId(id) {
  return String(id).slice(0, 8);
}

export function money(amount, unit) {
  if (unit === "points") return `${amount} pt`;
  const sign = amount < 0 ? "-" : "";
  const cents = Math.abs(amount);
  return `${sign}${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;
}

export function downloadText(filename, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = h("a", { href: url, download: filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000); // a busy browser may start the download late
}
