// A tiny markdown renderer for the how-to-play pages (GET /api/rules/<env>):
// headings, paragraphs, lists (nested by indentation), **bold**, *emphasis*,
// `code` and links. It builds DOM nodes with textContent only (never HTML
// strings), so nothing in a page can become markup; a link is made only to an
// http(s) address, anything else shows as its text.

import { h } from "./dom.js";

const LIST_ITEM = /^(\s*)([-*]|\d+\.)\s+(.*)$/;
const HEADING = /^(#{1,6})\s+(.*)$/;
const INLINE = /(\*\*[^*]+\*\*|`[^`]+`|\[[^\]]+\]\([^)\s]+\)|\*[^*\s][^*]*\*)/;

export function inline(text) {
  const nodes = [];
  for (const part of text.split(INLINE)) {
    if (!part) continue;
    if (part.startsWith("**") && part.endsWith("**") && part.length > 4) nodes.push(h("strong", {}, inline(part.slice(2, -2))));
    else if (part.startsWith("`") && part.endsWith("`") && part.length > 2) nodes.push(h("code", { text: part.slice(1, -1) }));
    else if (part.startsWith("[")) {
      const [, label, href] = part.match(/^\[([^\]]+)\]\(([^)\s]+)\)$/) || [null, part, ""];
      nodes.push(/^https?:\/\//.test(href) ? h("a", { href, target: "_blank", rel: "noopener noreferrer", text: label }) : label);
    } else if (part.startsWith("*") && part.endsWith("*") && part.length > 2) nodes.push(h("em", {}, inline(part.slice(1, -1))));
    else nodes.push(part);
  }
  return nodes;
}

// Headings are shifted down by `shift` levels (a page's "#" under a panel's own title).
export function renderMarkdown(text, shift = 1) {
  const root = document.createDocumentFragment();
  let paragraph = null; // lines of the paragraph being read
  let lists = []; // open lists: {indent, el, last}
  const flushParagraph = () => {
    if (paragraph) root.append(h("p", {}, inline(paragraph.join(" "))));
    paragraph = null;
  };
  const closeLists = () => {
    lists = [];
  };
  for (const raw of text.replace(/\r\n?/g, "\n").split("\n")) {
    const line = raw.replace(/\s+$/, "");
    if (line === "") {
      flushParagraph();
      continue;
    }
    const heading = line.match(HEADING);
    const item = line.match(LIST_ITEM);
    if (heading) {
      flushParagraph();
      closeLists();
      const level = Math.min(6, heading[1].length + shift);
      root.append(h(`h${level}`, {}, inline(heading[2])));
    } else if (item) {
      flushParagraph();
      const indent = item[1].length;
      const ordered = /\d/.test(item[2]);
      while (lists.length && lists[lists.length - 1].indent > indent) lists.pop();
      let list = lists[lists.length - 1];
      if (!list || list.indent < indent) {
        const el = h(ordered ? "ol" : "ul");
        if (list && list.last) list.last.append(el);
        else root.append(el);
        list = { indent, el, last: null };
        lists.push(list);
      }
      const li = h("li", {}, inline(item[3]));
      list.el.append(li);
      list.last = li;
    } else if (lists.length && /^\s/.test(line) && paragraph === null) {
      // a list item's continuation line
      const list = lists[lists.length - 1];
      list.last.append(" ", ...inline(line.trim()));
    } else {
      closeLists();
      paragraph = paragraph || [];
      paragraph.push(line.trim());
    }
  }
  flushParagraph();
  return root;
}
