import { Elysia } from "elysia";

/**
 * The block editor's script: the form works without it (every step is a post); with it, blocks
 * move (buttons, Alt+Arrow keys on a block, or dragging its handle), are added and removed
 * without a round trip, and the slug follows the title until someone types one. Fields are
 * renumbered (`block-{i}-...`) after each change so that a post reads them in page order.
 */
const EDITOR_SCRIPT = `(function () {
  var form = document.querySelector("form[data-editor]");
  if (!form) return;
  var list = form.querySelector("[data-blocks]");
  var status = document.getElementById("editor-status");
  var say = function (text) { if (status) status.textContent = text; };
  var blocks = function () { return Array.prototype.slice.call(list.querySelectorAll("fieldset[data-block]")); };
  var rename = function (value, i) { return value.replace(/block-\\d+-/, "block-" + i + "-").replace(/^block-\\d+$/, "block-" + i); };

  function renumber() {
    var all = blocks();
    all.forEach(function (block, i) {
      block.id = "block-" + i;
      block.querySelectorAll("[name]").forEach(function (el) { el.name = rename(el.name, i); });
      block.querySelectorAll("[id]").forEach(function (el) { el.id = rename(el.id, i); });
      block.querySelectorAll("label[for]").forEach(function (el) { el.htmlFor = rename(el.htmlFor, i); });
      block.querySelectorAll("[aria-describedby]").forEach(function (el) {
        el.setAttribute("aria-describedby", rename(el.getAttribute("aria-describedby"), i));
      });
      block.querySelectorAll(".block-number").forEach(function (el) { el.textContent = String(i + 1); });
      block.querySelectorAll("button[data-move]").forEach(function (button) {
        var move = button.getAttribute("data-move");
        button.value = move + ":" + i;
        button.disabled = move === "up" ? i === 0 : i === all.length - 1;
      });
      var remove = block.querySelector("button[data-remove]");
      if (remove) remove.value = "ask-remove:" + i;
    });
    form.querySelector("input[name=block_count]").value = String(all.length);
  }

  function move(block, by, focus) {
    var all = blocks();
    var at = all.indexOf(block);
    var to = at + by;
    if (to < 0 || to >= all.length) return;
    if (by < 0) list.insertBefore(block, all[to]); else list.insertBefore(block, all[to].nextSibling);
    renumber();
    if (focus) focus.focus();
    say("Block moved to position " + (to + 1) + " of " + all.length + ".");
  }

  list.addEventListener("click", function (event) {
    var button = event.target.closest("button");
    if (!button) return;
    var block = button.closest("fieldset[data-block]");
    if (button.hasAttribute("data-move")) {
      event.preventDefault();
      var up = button.getAttribute("data-move") === "up";
      move(block, up ? -1 : 1, null);
      var again = block.querySelector("button[data-move=" + (up ? "up" : "down") + "]");
      (again.disabled ? block.querySelector("button[data-move]:not([disabled])") || block : again).focus();
    } else if (button.hasAttribute("data-remove")) {
      event.preventDefault();
      if (!window.confirm("Remove this block? What it holds is lost when you save.")) return;
      var next = block.nextElementSibling || block.previousElementSibling;
      block.remove();
      renumber();
      say("Block removed.");
      (next ? next.querySelector("button, input, textarea, select") : form.querySelector("#field-add-type")).focus();
    }
  });

  list.addEventListener("keydown", function (event) {
    if (!event.altKey || (event.key !== "ArrowUp" && event.key !== "ArrowDown")) return;
    var block = event.target.closest("fieldset[data-block]");
    if (!block) return;
    event.preventDefault();
    move(block, event.key === "ArrowUp" ? -1 : 1, event.target);
  });

  var dragged = null;
  list.addEventListener("dragstart", function (event) {
    if (!event.target.closest || !event.target.closest("[data-handle]")) return;
    dragged = event.target.closest("fieldset[data-block]");
    if (event.dataTransfer) {
      event.dataTransfer.effectAllowed = "move";
      event.dataTransfer.setData("text/plain", "");
    }
  });
  list.addEventListener("dragover", function (event) { if (dragged) event.preventDefault(); });
  list.addEventListener("drop", function (event) {
    var target = event.target.closest("fieldset[data-block]");
    if (!dragged || !target || target === dragged) return;
    event.preventDefault();
    var all = blocks();
    if (all.indexOf(dragged) < all.indexOf(target)) list.insertBefore(dragged, target.nextSibling);
    else list.insertBefore(dragged, target);
    renumber();
    say("Block moved to position " + (blocks().indexOf(dragged) + 1) + ".");
  });
  list.addEventListener("dragend", function () { dragged = null; });
  var showHandle = function (handle) { handle.hidden = false; handle.draggable = true; };
  list.querySelectorAll("[data-handle]").forEach(showHandle);

  var add = form.querySelector("button[name=op][value=add]");
  add.addEventListener("click", function (event) {
    var type = form.querySelector("#field-add-type").value;
    var template = document.querySelector("template[data-block-template=" + type + "]");
    if (!template) return;
    event.preventDefault();
    list.appendChild(template.content.cloneNode(true));
    renumber();
    var block = blocks().pop();
    block.querySelectorAll("[data-handle]").forEach(showHandle);
    block.querySelector("input:not([type=hidden]), textarea, select").focus();
    say("Block added.");
  });

  var title = form.querySelector("#field-title");
  var slug = form.querySelector("#field-slug");
  if (title && slug) {
    var slugOf = function (text) {
      return text.normalize("NFKD").replace(/[\\u0300-\\u036f]/g, "").toLowerCase()
        .replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 120).replace(/-+$/, "");
    };
    var typed = slug.value !== "" && slug.value !== slugOf(title.value);
    slug.addEventListener("input", function () { typed = slug.value !== ""; });
    title.addEventListener("input", function () { if (!typed) slug.value = slugOf(title.value); });
  }
})();
`;

export const EDITOR_SCRIPT_PATH = "/app/story-editor.js";

export function editorScriptRoutes() {
  return new Elysia().get(
    EDITOR_SCRIPT_PATH,
    () =>
      new Response(EDITOR_SCRIPT, {
        headers: {
          "content-type": "text/javascript; charset=utf-8",
          "cache-control": "public, max-age=3600",
          "x-content-type-options": "nosniff",
        },
      }),
  );
}
