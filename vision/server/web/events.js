// The game's event forms, one piece of page code for the server's table mode (/table,
// table.js) and the stream's control page (/control, control.js): riichi, a win (ron or
// tsumo; han and fu, a yakuman or the hand; several winners of one discard), an exhaustive
// draw with who is tenpai, an abortive draw, chombo, a dead hand; MCR: false hu and §3.1
// penalties. The page says where an event goes: EventForms.mount(box, {send}) renders the
// buttons and their forms into box; send(event) posts it (docs/game-json.md) and resolves
// true when the ledger took it; update(game) fills the forms with the players.
"use strict";

const EventForms = (() => {
  const ABORTIVE = { nine_terminals: "nine terminals and honours", four_kans: "four kans",
    four_winds: "four winds", four_riichi: "four riichi", triple_ron: "triple ron" };

  // an event in words: "Bob declares riichi", "Dan wins by ron from Ann", "chombo by Cai"
  function describe(ev) {
    const winners = (ev.winners || []).map((w) => w.player);
    switch (ev.type) {
      case "riichi": return `${ev.player} declares riichi`;
      case "tsumo": return `${ev.player} wins by tsumo`;
      case "ron": return `${winners.join(" and ")} win${winners.length > 1 ? "" : "s"} by ron from ${ev.discarder}`;
      case "draw": return "exhaustive draw" + (ev.tenpai ? ", tenpai: " + (ev.tenpai.join(", ") || "nobody") : "");
      case "abortive": return "abortive draw: " + (ABORTIVE[ev.reason] || ev.reason);
      case "chombo": return `chombo by ${ev.player}`;
      case "false_win": return `false hu by ${ev.player}`;
      case "dead_hand": return `dead hand: ${ev.player}`;
      case "penalty": return `penalty to ${ev.player}` + (ev.kind === "delay_of_game" ? " (delay of game)" : "");
      default: return ev.type + (ev.player ? " " + ev.player : "");
    }
  }

  // the forms' own look, the same on both pages; every control a finger hits is 44 CSS px
  const STYLE = `
.ev-actions { display: grid; grid-template-columns: repeat(auto-fill, minmax(7.5em, 1fr)); gap: 6px; margin: 8px 0; }
.ev-actions button, .ev-buttons button { min-height: 44px; padding: 8px 12px; font-size: 1rem;
  border-radius: 8px; border: 1px solid #8a877d; background: #fff; color: #1d1d1b; }
.ev-actions button[aria-expanded=true], .ev-buttons button.primary { background: #0b6e4f; color: #fff; border-color: #0b6e4f; }
.ev-actions button:disabled { opacity: .4; }
form.panel { border-top: 1px solid #dedbd2; padding-top: 8px; margin-top: 8px; }
.ev-row { display: flex; flex-wrap: wrap; gap: 10px 16px; margin-bottom: 8px; }
.ev-row label { display: flex; flex-direction: column; font-size: .9rem; gap: 2px; min-height: 0; margin: 0; align-items: stretch; }
.ev-row label.check, .choices label.check { flex-direction: row; align-items: center; gap: 8px; min-height: 44px; cursor: pointer; padding-right: 10px; }
.ev-row select, .ev-row input:not([type=checkbox]):not([type=radio]) { min-height: 44px; max-width: 100%; font-size: 1rem; }
.ev-row input[type=number] { width: 5em; }
.ev-buttons { display: flex; gap: 8px; flex-wrap: wrap; }
.winner-row { border-left: 3px solid #dedbd2; padding-left: 8px; margin-bottom: 8px; }
.choices { display: flex; flex-direction: column; gap: 2px; border: 0; padding: 0; margin: 0 0 8px; }
.choices legend { font-size: .9rem; padding: 0; margin-bottom: 2px; }
.ev-hint { color: #6b6a66; font-size: .9rem; margin: 4px 0; }
`;

  const MARKUP = `
<div class="actions ev-actions" id="actions">
  <button type="button" id="act-riichi" class="riichi-only">Riichi</button>
  <button type="button" id="act-win">Win</button>
  <button type="button" id="act-draw">Draw</button>
  <button type="button" id="act-abortive" class="riichi-only">Abortive</button>
  <button type="button" id="act-chombo" class="riichi-only">Chombo</button>
  <button type="button" id="act-false" class="mcr-only">False hu</button>
  <button type="button" id="act-dead">Dead hand</button>
  <button type="button" id="act-penalty" class="mcr-only">Penalty</button>
</div>
<form id="form-riichi" class="panel" hidden>
  <div class="ev-row"><label>Who declares riichi <select id="riichi-player" class="who"></select></label></div>
  <div class="ev-buttons"><button type="submit" class="primary">Riichi: 1,000 to the table</button></div>
</form>
<form id="form-win" class="panel" hidden>
  <div class="ev-row">
    <label>How <select id="win-how">
      <option value="ron">Ron (on a discard)</option>
      <option value="tsumo">Tsumo (self-drawn)</option>
    </select></label>
    <label id="win-from-label">From (discarder) <select id="win-from" class="who"></select></label>
  </div>
  <div id="winners"></div>
  <div class="ev-buttons">
    <button type="button" id="win-more" class="riichi-only">+ Another winner</button>
    <button type="submit" class="primary">Record the win</button>
  </div>
</form>
<form id="form-draw" class="panel" hidden>
  <p class="riichi-only ev-hint">Exhaustive draw: tick who is tenpai (a riichi player left
    unticked is noten: chombo).</p>
  <p class="mcr-only ev-hint">Exhaustive draw: nobody pays.</p>
  <div class="ev-row riichi-only" id="tenpai"></div>
  <div class="ev-buttons"><button type="submit" class="primary">Record the draw</button></div>
</form>
<form id="form-abortive" class="panel" hidden>
  <div class="ev-row"><label>Reason <select id="abortive-reason">
    <option value="nine_terminals">Nine terminals and honours</option>
    <option value="four_kans">Four kans</option>
    <option value="four_winds">Four winds</option>
    <option value="four_riichi">Four riichi</option>
  </select></label></div>
  <div class="ev-row" id="kans-row" hidden>
    <label>Kan 1 <select class="who kan"></select></label>
    <label>Kan 2 <select class="who kan"></select></label>
    <label>Kan 3 <select class="who kan"></select></label>
    <label>Kan 4 <select class="who kan"></select></label>
    <label>Kan 5 <select class="who kan" data-optional="1"></select></label>
  </div>
  <div class="ev-buttons"><button type="submit" class="primary">Record the abortive draw</button></div>
</form>
<form id="form-chombo" class="panel" hidden>
  <div class="ev-row"><label>Who <select id="chombo-player" class="who"></select></label></div>
  <div class="ev-buttons"><button type="submit" class="primary">Record the chombo</button></div>
</form>
<form id="form-false" class="panel" hidden>
  <div class="ev-row"><label>Who <select id="false-player" class="who"></select></label></div>
  <fieldset class="choices" id="false-kind">
    <legend>Hand shown</legend>
    <label class="check"><input type="radio" name="false-kind" value="short"> 4 sets and a pair, under 8 points: 10 to each</label>
    <label class="check"><input type="radio" name="false-kind" value="invalid"> Not a hand: 20 to each</label>
  </fieldset>
  <div class="ev-buttons"><button type="submit" class="primary">Record the false hu</button></div>
</form>
<form id="form-dead" class="panel" hidden>
  <p class="ev-hint">A dead hand cannot win this hand<span class="riichi-only"> nor be tenpai at the draw</span>; nobody pays.</p>
  <div class="ev-row"><label>Whose hand <select id="dead-player" class="who"></select></label>
    <label>Why (optional) <input id="dead-reason" autocomplete="off" maxlength="200" placeholder="wrong call"></label></div>
  <div class="ev-buttons"><button type="submit" class="primary">Record the dead hand</button></div>
</form>
<form id="form-penalty" class="panel" hidden>
  <p class="ev-hint">EMA §3.1: a warning first, then 5, 10, 20, 30 … points off the offender's score.</p>
  <div class="ev-row"><label>Who <select id="penalty-player" class="who"></select></label>
    <label>For <select id="penalty-kind"><option value="infraction">an infraction</option>
      <option value="delay_of_game">delay of game</option></select></label>
    <label>Why (optional) <input id="penalty-reason" autocomplete="off" maxlength="200"></label></div>
  <div class="ev-buttons"><button type="submit" class="primary">Record the penalty</button></div>
</form>
<template id="winner-template">
  <div class="winner-row">
    <div class="ev-row">
      <label>Winner <select class="who w-player"></select></label>
    </div>
    <div class="ev-row riichi-only">
      <label>Han <input class="w-han" type="number" min="0" max="99" inputmode="numeric"></label>
      <label>Fu <input class="w-fu" type="number" min="0" max="110" step="5" inputmode="numeric"></label>
      <label>Yakuman <input class="w-yakuman" type="number" min="0" max="6" inputmode="numeric"></label>
      <label>of it dora <input class="w-dora" type="number" min="0" max="99" inputmode="numeric"></label>
    </div>
    <div class="ev-row">
      <label>or the hand (mpsz, 13 tiles) <input class="w-hand" autocomplete="off" placeholder="22234m345p56678s"></label>
      <label>winning tile <input class="w-tile" autocomplete="off" placeholder="4s" size="4"></label>
      <label class="riichi-only">dora indicators <input class="w-dora-ind" autocomplete="off" placeholder="9p" size="6"></label>
    </div>
    <div class="ev-row mcr-only">
      <label>Points (fan, flowers included) <input class="w-fan" type="number" min="0" max="999" inputmode="numeric"></label>
      <label>of it flowers <input class="w-flowers" type="number" min="0" max="8" inputmode="numeric"></label>
    </div>
  </div>
</template>`;

  // each action button and the form it opens (a second press closes it)
  const PANELS = [["act-riichi", "form-riichi"], ["act-win", "form-win"], ["act-draw", "form-draw"],
    ["act-abortive", "form-abortive"], ["act-chombo", "form-chombo"], ["act-false", "form-false"],
    ["act-dead", "form-dead"], ["act-penalty", "form-penalty"]];

  function mount(box, { send, onError = () => {}, onOpen = () => {}, extra = [] }) {
    if (!document.getElementById("event-forms-style")) {
      const style = document.createElement("style");
      style.id = "event-forms-style";
      style.textContent = STYLE;
      document.head.append(style);
    }
    box.innerHTML = MARKUP;
    const $ = (sel) => box.querySelector(sel);
    const $$ = (sel) => Array.from(box.querySelectorAll(sel));
    const panels = PANELS.concat(extra);      // the page's own (its undo form)
    let game = { players: [], ruleset: "riichi" };

    function showRuleset() {
      for (const el of $$(".riichi-only")) el.hidden = game.ruleset !== "riichi";
      for (const el of $$(".mcr-only")) el.hidden = game.ruleset !== "mcr";
    }

    function fillPlayers(select, optional) {
      // no player is chosen for the user: a form sent as it opened records nothing
      const keep = select.value;
      select.replaceChildren(new Option(optional ? "—" : "choose…", ""));
      for (const p of game.players) select.append(new Option(p, p));
      if (game.players.includes(keep)) select.value = keep;
    }

    // the player a select names, or an error in words when none was chosen
    function chosen(select, what) {
      if (!select.value) throw new Error(`Choose ${what}.`);
      return select.value;
    }

    function panel(id) {
      for (const [button, form] of panels) {
        const f = document.getElementById(form), b = document.getElementById(button);
        if (f) f.hidden = form !== id;
        if (b) b.setAttribute("aria-expanded", String(form === id));
      }
      if (id) onOpen(id);
      if (id === "form-win" && !$("#winners").children.length) addWinner();
      if (id === "form-abortive") $("#kans-row").hidden = $("#abortive-reason").value !== "four_kans";
    }

    function addWinner() {
      const row = $("#winner-template").content.firstElementChild.cloneNode(true);
      fillPlayers(row.querySelector(".w-player"));
      $("#winners").append(row);
      showRuleset();
    }

    function number(input) {
      const v = input.value.trim();
      return v === "" ? undefined : Number(v);
    }

    function winnerValue(row) {
      // a winner's value: MCR fan; riichi: the hand to score, or yakuman, or han and fu
      const q = (sel) => row.querySelector(sel);
      const w = { player: chosen(q(".w-player"), "the winner") };
      const hand = q(".w-hand").value.trim();
      // a value typed beside the hand, or han and fu beside a yakuman, is never dropped
      // unsaid: the scorekeeper is asked which one they meant
      const NAMES = { ".w-han": "han", ".w-fu": "fu", ".w-yakuman": "yakuman", ".w-dora": "dora",
        ".w-fan": "points" };
      const typed = (sels) => sels.filter((sel) => q(sel).value.trim() !== "").map((sel) => NAMES[sel]);
      if (game.ruleset === "mcr") {
        const fl = number(q(".w-flowers"));
        if (hand && typed([".w-fan"]).length) {
          throw new Error(`Give ${w.player}'s points (fan) or the hand, not both.`);
        }
        if (hand) return { ...w, hand: { concealed: hand, win_tile: q(".w-tile").value.trim(),
          ...(fl ? { flowers: fl } : {}) } };
        w.fan = number(q(".w-fan"));
        if (fl) w.flowers = fl;
        if (w.fan === undefined) throw new Error(`Type ${w.player}'s points (fan), or the hand.`);
        return w;
      }
      const values = typed([".w-han", ".w-fu", ".w-yakuman", ".w-dora"]);
      if (hand && values.length) {
        throw new Error(`Give ${w.player}'s hand or the ${values.join(", ")}, not both.`);
      }
      if (hand) {
        w.hand = { concealed: hand, win_tile: q(".w-tile").value.trim() };
        const dora = q(".w-dora-ind").value.trim();
        if (dora) w.hand.dora_indicators = dora;
        return w;
      }
      const yakuman = number(q(".w-yakuman"));
      if (yakuman && typed([".w-han", ".w-fu", ".w-dora"]).length) {
        throw new Error(`A yakuman has no han nor fu: give ${w.player}'s yakuman or the han and fu, not both.`);
      }
      if (yakuman) return { ...w, yakuman };
      w.han = number(q(".w-han"));
      if (w.han === undefined) throw new Error(`Type ${w.player}'s han and fu, a yakuman, or the hand.`);
      const fu = number(q(".w-fu"));
      if (fu !== undefined) w.fu = fu;
      const dora = number(q(".w-dora"));
      if (dora) w.dora = dora;
      return w;
    }

    function winEvent() {
      const winners = $$("#winners .winner-row").map(winnerValue);
      if ($("#win-how").value === "tsumo") {
        if (winners.length > 1) throw new Error("A tsumo has one winner.");
        return { type: "tsumo", ...winners[0] };
      }
      return { type: "ron", discarder: chosen($("#win-from"), "who discarded the winning tile"), winners };
    }

    const BUILD = {
      "form-riichi": () => ({ type: "riichi", player: chosen($("#riichi-player"), "who declares riichi") }),
      "form-win": winEvent,
      "form-draw": () => (game.ruleset === "mcr" ? { type: "draw" }
        : { type: "draw", tenpai: $$("#tenpai input:checked").map((b) => b.value) }),
      "form-abortive": () => {
        const reason = $("#abortive-reason").value;
        if (reason !== "four_kans") return { type: "abortive", reason };
        const kans = $$("#kans-row select.kan").map((s) => s.value).filter(Boolean);
        if (kans.length < 4) throw new Error("Choose who made each of the four kans.");
        return { type: "abortive", reason, kans };
      },
      "form-chombo": () => ({ type: "chombo", player: chosen($("#chombo-player"), "who made the chombo") }),
      "form-false": () => {
        const player = chosen($("#false-player"), "who declared the false hu");
        const kind = $("#false-kind input:checked");
        if (!kind) throw new Error("Choose the hand shown: 4 sets and a pair, or not a hand.");
        return { type: "false_win", player, kind: kind.value };
      },
      "form-dead": () => {
        const ev = { type: "dead_hand", player: chosen($("#dead-player"), "whose hand is dead") };
        const why = $("#dead-reason").value.trim();
        return why ? { ...ev, reason: why } : ev;
      },
      "form-penalty": () => {
        const ev = { type: "penalty", player: chosen($("#penalty-player"), "who is penalised"),
          kind: $("#penalty-kind").value };
        const why = $("#penalty-reason").value.trim();
        return why ? { ...ev, reason: why } : ev;
      },
    };

    for (const [button, form] of PANELS) {
      $("#" + button).addEventListener("click", () => panel($("#" + form).hidden ? form : null));
      $("#" + form).addEventListener("submit", async (e) => {
        e.preventDefault();
        let event;
        try {
          event = BUILD[form]();
        } catch (err) {
          onError(err.message);
          return;
        }
        if (await send(event)) {
          $("#winners").replaceChildren();
          for (const input of $$("#dead-reason, #penalty-reason")) input.value = "";
          panel(null);
        }
      });
    }
    $("#win-how").addEventListener("change", () => {
      $("#win-from-label").hidden = $("#win-how").value === "tsumo";
    });
    $("#win-more").addEventListener("click", addWinner);
    $("#abortive-reason").addEventListener("change", () => panel("form-abortive"));

    // the game as the page last heard it: {players, ruleset, ended}
    function update(g) {
      const changed = g.players.join() !== game.players.join() || g.ruleset !== game.ruleset;
      game = { players: g.players, ruleset: g.ruleset || "riichi" };
      if (changed) {
        showRuleset();
        for (const sel of $$("select.who")) fillPlayers(sel, sel.dataset.optional);
        const tenpai = $("#tenpai");
        tenpai.replaceChildren();
        for (const p of g.players) {
          const label = document.createElement("label");
          label.className = "check";
          const box = document.createElement("input");
          box.type = "checkbox";
          box.value = p;
          box.name = "tenpai";
          label.append(box, " " + p);
          tenpai.append(label);
        }
        $("#winners").replaceChildren();
      }
      for (const [button] of PANELS) $("#" + button).disabled = !!g.ended;
    }

    // a recorded event: the forms' choices start afresh (tenpai ticks, false hu kind)
    function reset() {
      for (const box of $$("#tenpai input, #false-kind input")) box.checked = false;
    }

    return { update, panel, reset, describe };
  }

  return { mount, describe, ABORTIVE };
})();
