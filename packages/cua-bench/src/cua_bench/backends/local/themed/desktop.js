// The simulated desktop's behaviour: windows (open, focus, drag, minimise, maximise, close), the look's
// bars (menu bar and dock, taskbar, top bar, phone bars) and their clock, and `window.cua`, which the
// session calls over the DevTools protocol. Everything reacts to real input (XTest clicks and drags):
// agents act through the screen. Nothing animates, so the screen settles right after each action.
"use strict";
(() => {
  const query = new URLSearchParams(location.search);
  const look = query.get("look") || "linux";
  // bar: title bar height; edge: frame width; top/bottom: the shell's bars the work area leaves out.
  const LOOKS = {
    macos: { bar: 28, edge: 0, top: 24, bottom: 0, buttons: ["close", "minimize", "maximize"] },
    win11: { bar: 32, edge: 1, top: 0, bottom: 48, buttons: ["minimize", "maximize", "close"] },
    win10: { bar: 31, edge: 1, top: 0, bottom: 40, buttons: ["minimize", "maximize", "close"] },
    classic: { bar: 20, edge: 3, top: 0, bottom: 28, buttons: ["minimize", "maximize", "close"] },
    linux: { bar: 38, edge: 0, top: 32, bottom: 0, buttons: ["close"] },
    android: { bar: 0, edge: 0, top: 28, bottom: 44, buttons: [] },
    ios: { bar: 0, edge: 0, top: 44, bottom: 28, buttons: [] },
  };
  const L = LOOKS[look] || LOOKS.linux;
  const root = document.documentElement;
  root.dataset.look = look;
  root.style.setProperty("--font", query.get("font") || "sans-serif");
  for (const key of ["bar", "edge", "top", "bottom"]) root.style.setProperty("--" + key, L[key] + "px");

  const GLYPHS = {
    minimize: '<svg width="10" height="10" viewBox="0 0 10 10"><path d="M0 5.5h10" stroke="currentColor"/></svg>',
    maximize: '<svg width="10" height="10" viewBox="0 0 10 10"><rect x=".5" y=".5" width="9" height="9" fill="none" stroke="currentColor"/></svg>',
    close: '<svg width="10" height="10" viewBox="0 0 10 10"><path d="M.5 .5l9 9M9.5 .5l-9 9" stroke="currentColor" stroke-width="1.1"/></svg>',
  };
  const ICONS = {
    apple: '<svg width="14" height="16" viewBox="0 0 14 16"><path fill="currentColor" d="M7 4.6C5.6 3.7 2.6 3.8 1.6 6.6c-.9 2.7.6 6.7 2.6 8.2 1 .7 1.8.3 2.8.3s1.8.4 2.8-.3c1.5-1.1 2.6-3.4 2.6-4.9-1.6-.8-2.2-2.7-1.2-4.1C10.2 4.1 8.4 3.8 7 4.6zM7.2 3.7C7.1 2.3 8.1.9 9.6.6c.1 1.5-1 2.9-2.4 3.1z"/></svg>',
    logo: '<svg width="18" height="18" viewBox="0 0 20 20"><rect x="1" y="1" width="8.5" height="8.5"/><rect x="10.5" y="1" width="8.5" height="8.5"/><rect x="1" y="10.5" width="8.5" height="8.5"/><rect x="10.5" y="10.5" width="8.5" height="8.5"/></svg>',
    search: '<svg width="16" height="16" viewBox="0 0 16 16"><circle cx="6.5" cy="6.5" r="5" fill="none" stroke="currentColor" stroke-width="1.4"/><path d="M10.2 10.2l4.6 4.6" stroke="currentColor" stroke-width="1.6"/></svg>',
    wifi: '<svg width="16" height="12" viewBox="0 0 16 12"><g fill="none" stroke="currentColor" stroke-width="1.5" stroke-linecap="round"><path d="M1.5 4.2a9.5 9.5 0 0 1 13 0"/><path d="M3.9 6.8a6 6 0 0 1 8.2 0"/><path d="M6.3 9.3a2.5 2.5 0 0 1 3.4 0"/></g><circle cx="8" cy="11" r=".9" fill="currentColor"/></svg>',
    battery: '<svg width="24" height="12" viewBox="0 0 24 12"><rect x=".5" y=".5" width="20" height="11" rx="3" fill="none" stroke="currentColor" opacity=".6"/><rect x="2" y="2" width="15" height="8" rx="1.5" fill="currentColor"/><rect x="21.5" y="4" width="1.5" height="4" rx=".7" fill="currentColor" opacity=".6"/></svg>',
    speaker: '<svg width="14" height="14" viewBox="0 0 14 14"><path d="M1 5h3l4-3.5v11L4 9H1z" fill="currentColor"/><path d="M10 4.5a3.5 3.5 0 0 1 0 5M11.5 2.5a6 6 0 0 1 0 9" fill="none" stroke="currentColor" stroke-width="1.2"/></svg>',
    back: '<svg width="18" height="18" viewBox="0 0 18 18"><path d="M13 2v14L3 9z" fill="none" stroke="currentColor" stroke-width="1.6" stroke-linejoin="round"/></svg>',
    home: '<svg width="18" height="18" viewBox="0 0 18 18"><circle cx="9" cy="9" r="7" fill="none" stroke="currentColor" stroke-width="1.6"/></svg>',
    recent: '<svg width="18" height="18" viewBox="0 0 18 18"><rect x="3" y="3" width="12" height="12" rx="1" fill="none" stroke="currentColor" stroke-width="1.6"/></svg>',
  };
  const PINNED = { macos: ["finder", "browser", "mail", "notes", "music", "settings"], win11: ["folder", "browser", "store", "mail"],
    win10: ["folder", "browser", "store", "mail"], classic: [] };
  const esc = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

  const layer = document.getElementById("windows");
  const shell = document.getElementById("shell");
  const wins = new Map(); // handle -> {handle, el, frame, title, minimized, maximized, saved}
  let order = []; // handles, back to front
  let drag = null;
  const hooked = new WeakSet(); // documents of windows whose input we watch

  const area = () => ({ x: 0, y: L.top, width: innerWidth, height: innerHeight - L.top - L.bottom });
  const front = () => [...order].reverse().find((h) => !wins.get(h).minimized) ?? null;

  function place(w, x, y, width, height) {
    Object.assign(w, { x, y, width, height });
    Object.assign(w.el.style, { left: x + "px", top: y + "px", width: width + "px", height: height + "px" });
  }

  function restack() {
    order.forEach((h, i) => { wins.get(h).el.style.zIndex = String(10 + i); });
    const top = front();
    for (const [h, w] of wins) w.el.classList.toggle("focused", h === top);
    renderShell();
  }

  function focusFrame() {
    const top = front();
    if (top !== null && !wins.get(top).el.contains(document.activeElement)) wins.get(top).frame.focus();
  }

  function focus(handle, move = true) {
    const w = wins.get(handle);
    if (!w) return false;
    w.minimized = false;
    w.el.classList.remove("minimized");
    order = order.filter((h) => h !== handle).concat([handle]);
    restack();
    if (move) focusFrame();
    return true;
  }

  function close(handle) {
    const w = wins.get(handle);
    if (!w) return false;
    w.el.remove();
    wins.delete(handle);
    order = order.filter((h) => h !== handle);
    restack();
    focusFrame();
    return true;
  }

  function minimize(handle) {
    const w = wins.get(handle);
    if (!w) return false;
    w.minimized = true;
    w.el.classList.add("minimized");
    restack();
    focusFrame();
    return true;
  }

  function maximize(handle) {
    const w = wins.get(handle);
    if (!w) return false;
    if (w.maximized) place(w, ...w.saved);
    else {
      w.saved = [w.x, w.y, w.width, w.height];
      const a = area();
      place(w, a.x, a.y, a.width, a.height);
    }
    w.maximized = !w.maximized;
    w.el.classList.toggle("maximized", w.maximized);
    return focus(handle);
  }

  // Keys the browser itself would answer (reload, zoom, find, save, print, history...): a desktop has
  // no such thing. The pages still see them; only the browser's default is stopped.
  function guard(e) {
    const mod = e.ctrlKey || e.metaKey;
    const k = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    if (["F3", "F5", "F6", "F7", "F11", "F12", "BrowserBack", "BrowserForward", "BrowserRefresh"].includes(k)
        || (mod && "rsopuhjdgf=+-0".includes(k) && k.length === 1)
        || (mod && e.shiftKey && "icjbo".includes(k) && k.length === 1)
        || (e.altKey && ["ArrowLeft", "ArrowRight", "Home"].includes(k))) e.preventDefault();
  }
  const noZoom = (e) => { if (e.ctrlKey) e.preventDefault(); };

  function hook(w) {
    let doc;
    try { doc = w.frame.contentDocument; } catch (e) { return; }
    if (!doc || hooked.has(doc)) return;
    hooked.add(doc);
    const view = doc.defaultView;
    view.addEventListener("pointerdown", () => focus(w.handle, false), true);
    view.addEventListener("keydown", guard, true);
    view.addEventListener("wheel", noZoom, { capture: true, passive: false });
  }

  // A page of another site cannot be watched from here: the session gives it a listener that says so.
  addEventListener("message", (e) => {
    if (!e.data || e.data.cuaPress !== true) return;
    for (const w of wins.values()) if (w.frame.contentWindow === e.source) focus(w.handle, false);
  });
  addEventListener("keydown", guard, true);
  addEventListener("wheel", noZoom, { capture: true, passive: false });
  addEventListener("contextmenu", (e) => e.preventDefault());

  function bind(w) {
    const bar = w.el.querySelector(".bar");
    // A press on the frame raises the window and keeps the keyboard in its page.
    w.el.addEventListener("mousedown", (e) => { e.preventDefault(); focus(w.handle); });
    w.el.querySelectorAll(".buttons button").forEach((b) => b.addEventListener("click", () => {
      ({ close, minimize, maximize })[b.dataset.act](w.handle);
    }));
    bar.addEventListener("pointerdown", (e) => {
      if (e.button !== 0 || e.target.closest(".buttons") || w.maximized) return;
      drag = { w, dx: e.clientX - w.x, dy: e.clientY - w.y };
      bar.setPointerCapture(e.pointerId);
      document.body.classList.add("dragging");
    });
    bar.addEventListener("pointermove", (e) => {
      if (!drag || drag.w !== w) return;
      const x = Math.min(Math.max(e.clientX - drag.dx, 40 - w.width), innerWidth - 40);
      const y = Math.min(Math.max(e.clientY - drag.dy, area().y), innerHeight - 20);
      place(w, Math.round(x), Math.round(y), w.width, w.height);
    });
    const end = () => { drag = null; document.body.classList.remove("dragging"); };
    bar.addEventListener("pointerup", end);
    bar.addEventListener("lostpointercapture", end);
    bar.addEventListener("dblclick", (e) => {
      if (!e.target.closest(".buttons") && L.buttons.includes("maximize")) maximize(w.handle);
    });
  }

  // spec: {handle, title, src, x, y, width, height, inner}; resolves once the page has loaded.
  function open(spec) {
    let { width, height } = spec;
    if (spec.inner) { width += 2 * L.edge; height += L.bar + 2 * L.edge; }
    const a = area();
    const x = spec.x ?? Math.max(a.x, Math.round(a.x + (a.width - width) / 2));
    const y = spec.y ?? Math.max(a.y, Math.round(a.y + (a.height - height) / 2));
    const el = document.createElement("div");
    el.className = "win";
    el.dataset.handle = spec.handle;
    const buttons = L.buttons.map((b) => `<button class="b-${b}" data-act="${b}" tabindex="-1">${GLYPHS[b]}</button>`);
    el.innerHTML = `<div class="bar"><div class="icon"></div><div class="title">${esc(spec.title)}</div>`
      + `<div class="buttons">${buttons.join("")}</div></div><div class="content"><iframe></iframe></div>`;
    const frame = el.querySelector("iframe");
    frame.dataset.cuaHandle = spec.handle;
    frame.setAttribute("allow", "clipboard-read; clipboard-write; fullscreen; autoplay");
    const w = { handle: spec.handle, el, frame, title: spec.title, minimized: false, maximized: false };
    wins.set(spec.handle, w);
    place(w, x, y, width, height);
    bind(w);
    const loaded = new Promise((resolve) => frame.addEventListener("load", resolve, { once: true }));
    frame.addEventListener("load", () => hook(w));
    frame.src = spec.src;
    layer.appendChild(el);
    order.push(spec.handle);
    restack();
    return loaded.then(() => focus(spec.handle));
  }

  function list() {
    const s = devicePixelRatio || 1;
    const top = front();
    return [...order].reverse().map((h) => {
      const w = wins.get(h);
      const r = w.el.getBoundingClientRect();
      return { handle: h, title: w.title, x: r.left * s, y: r.top * s, width: r.width * s, height: r.height * s,
        focused: h === top, minimized: w.minimized };
    });
  }

  // Where the window's page starts, in device pixels of the desktop page (null: closed or minimised).
  function origin(handle) {
    const w = wins.get(handle);
    if (!w || w.minimized) return null;
    const r = w.frame.getBoundingClientRect();
    const s = devicePixelRatio || 1;
    return [r.left * s, r.top * s];
  }

  function clear() {
    for (const h of [...wins.keys()]) close(h);
  }

  // -- the shell: the look's bars, drawn once, their window entries on every change ------------------

  function clockText(d) {
    const time = d.toLocaleTimeString("en-US", { hour: "numeric", minute: "2-digit" });
    if (look === "macos") {
      return d.toLocaleDateString("en-US", { weekday: "short", month: "short", day: "numeric" }).replace(",", "") + "\u2002" + time;
    }
    if (look === "win11" || look === "win10") return `${time}<br>${d.toLocaleDateString("en-US")}`;
    if (look === "linux") {
      return d.toLocaleDateString("en-US", { month: "short", day: "numeric" }) + "\u2002"
        + d.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit" });
    }
    if (look === "android" || look === "ios") return d.toLocaleTimeString("en-US", { hour: "numeric", minute: "2-digit" }).replace(/\s?[AP]M/, "");
    return time;
  }

  function tick() {
    const d = new Date();
    shell.querySelectorAll(".clock").forEach((c) => { c.innerHTML = clockText(d); });
    setTimeout(tick, 60000 - (d.getTime() % 60000) + 20);
  }

  const pinned = (names) => names.map((n) => `<div class="tb app-icon ic-${n}" title="${n}"></div>`).join("");
  const SHELLS = {
    macos: () => `<div class="menubar"><span class="apple">${ICONS.apple}</span><b class="appname">Finder</b>`
      + "<span>File</span><span>Edit</span><span>View</span><span>Go</span><span>Window</span><span>Help</span>"
      + `<span class="right">${ICONS.battery}${ICONS.wifi}${ICONS.search}<span class="clock"></span></span></div>`
      + `<div class="dock"><span class="pinned">${PINNED.macos.map((n) => `<div class="app ic-${n}" title="${n}"></div>`).join("")}</span>`
      + '<span class="sep"></span><span class="minimized"></span><div class="app ic-trash" title="Trash"></div></div>',
    win11: () => `<div class="taskbar"><div class="center"><div class="tb start" title="Start">${ICONS.logo}</div>`
      + `<div class="tb search" title="Search">${ICONS.search}</div>${pinned(PINNED.win11)}<span class="running"></span></div>`
      + `<div class="tray">${ICONS.wifi}${ICONS.speaker}${ICONS.battery}<span class="clock"></span></div></div>`,
    win10: () => `<div class="taskbar"><div class="tb start" title="Start">${ICONS.logo}</div>`
      + `<div class="searchbox">${ICONS.search}<span>Type here to search</span></div>${pinned(PINNED.win10)}`
      + `<span class="running"></span><div class="tray">${ICONS.wifi}${ICONS.speaker}<span class="clock"></span></div></div>`,
    classic: () => `<div class="taskbar"><div class="start">${ICONS.logo}<b>Start</b></div><span class="running"></span>`
      + '<div class="tray"><span class="clock"></span></div></div>',
    linux: () => '<div class="topbar"><span class="activities">Activities</span><span class="clock"></span>'
      + `<span class="tray">${ICONS.wifi}${ICONS.speaker}${ICONS.battery}</span></div>`,
    android: () => `<div class="statusbar"><span class="clock"></span><span class="tray">${ICONS.wifi}${ICONS.battery}</span></div>`
      + `<div class="navbar"><span>${ICONS.back}</span><span>${ICONS.home}</span><span>${ICONS.recent}</span></div>`,
    ios: () => `<div class="statusbar"><span class="clock"></span><span class="tray">${ICONS.wifi}${ICONS.battery}</span></div>`
      + '<div class="homebar"></div>',
  };

  function renderShell() {
    const top = front();
    const name = shell.querySelector(".appname");
    if (name) name.textContent = top === null ? "Finder" : wins.get(top).title;
    const running = shell.querySelector(".running");
    if (running) {
      running.innerHTML = [...wins.keys()].sort((a, b) => a - b).map((h) => {
        const w = wins.get(h);
        const state = (h === top ? " active" : "") + (w.minimized ? " min" : "");
        return `<div class="tb window${state}" data-handle="${h}" title="${esc(w.title)}">`
          + `<span class="app-icon ic-window">${esc(w.title.trim().charAt(0).toUpperCase())}</span>`
          + `<span class="label">${esc(w.title)}</span></div>`;
      }).join("");
    }
    const docked = shell.querySelector(".dock .minimized");
    if (docked) {
      docked.innerHTML = order.filter((h) => wins.get(h).minimized).map((h) => {
        const w = wins.get(h);
        return `<div class="app ic-window window" data-handle="${h}" title="${esc(w.title)}">${esc(w.title.trim().charAt(0).toUpperCase())}</div>`;
      }).join("");
    }
  }

  // A window's entry in the taskbar or the dock: restore it, or minimise the window in front (Windows).
  shell.addEventListener("click", (e) => {
    const entry = e.target.closest(".window[data-handle]");
    if (!entry) return;
    const handle = Number(entry.dataset.handle);
    if (handle === front() && look !== "macos") minimize(handle);
    else focus(handle);
  });
  shell.addEventListener("mousedown", (e) => e.preventDefault()); // the bars never take the keyboard

  shell.innerHTML = (SHELLS[look] || SHELLS.linux)();
  renderShell();
  tick();
  window.cua = { look, episode: query.get("episode"), ready: true, area, open, focus, close, minimize, maximize, list, origin, clear };
})();
