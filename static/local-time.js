// Deadlines in the browser's own time zone. Each <time data-deadline datetime="...Z"> already
// reads right without this script (in the player's chosen zone, or in UTC, named); here its
// words are said again in the zone this browser is in, in the page's language (<html lang>),
// with the time left counted from now. The words come from the server with the element
// (data-words: service/reader_time.py's script_words), so they are the page's own.
(function () {
  "use strict";
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!zone) { return; }
  var lang = document.documentElement.lang || "en";
  // English pages write "Friday 28 November" (British order), as the server does.
  var locale = lang === "en" ? "en-GB" : lang;
  var day = new Intl.DateTimeFormat(locale, {
    timeZone: zone, weekday: lang === "en" ? "long" : "short", day: "numeric", month: "long"
  });
  var clock = new Intl.DateTimeFormat(locale, {
    timeZone: zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23"
  });
  function fill(text, values) {
    return text.replace(/\{(\w+)\}/g, function (all, key) {
      return Object.prototype.hasOwnProperty.call(values, key) ? values[key] : all;
    });
  }
  // One form for one, another for the rest: what English and Japanese (one form) need.
  function count(words, n, one, other) { return fill(n === 1 ? words[one] : words[other], { n: n }); }
  // The same words as service/reader_time.py's time_left.
  function left(words, minutes) {
    if (minutes <= 0) { return words.none; }
    if (minutes < 60) { return count(words, minutes, "minute1", "minutes"); }
    var hours = Math.floor(minutes / 60), days = Math.floor(hours / 24);
    hours = hours % 24;
    if (days === 0) { return count(words, hours, "hour1", "hours"); }
    if (!hours) { return count(words, days, "day1", "days"); }
    return fill(words.both, {
      days: count(words, days, "day1", "days"), hours: count(words, hours, "hour1", "hours")
    });
  }
  function when(at) {
    if (lang === "en") { return day.format(at) + ", " + clock.format(at); }
    return day.format(at) + " " + clock.format(at);
  }
  var utc = zone === "UTC" || zone === "Etc/UTC";
  document.querySelectorAll("time[data-deadline]").forEach(function (element) {
    var at = new Date(element.getAttribute("datetime"));
    var words;
    try { words = JSON.parse(element.getAttribute("data-words") || ""); } catch (e) { return; }
    if (isNaN(at.getTime()) || !words) { return; }
    var minutes = Math.floor((at.getTime() - Date.now()) / 60000);
    var time = utc ? fill(words.utc, { time: when(at) }) : fill(words.zone, { time: when(at), zone: zone });
    element.textContent = fill(words.left, { time: time, left: left(words, minutes) });
  });
}());
