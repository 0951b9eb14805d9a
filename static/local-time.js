// Deadlines in the browser's own time zone. Each <time data-deadline datetime="...Z"> already
// reads right without this script (in the player's chosen zone, or in UTC, named); here its
// words are said again in the zone this browser is in, with the time left counted from now.
(function () {
  "use strict";
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!zone) { return; }
  var day = new Intl.DateTimeFormat("en-GB", {
    timeZone: zone, weekday: "long", day: "numeric", month: "long"
  });
  var clock = new Intl.DateTimeFormat("en-GB", {
    timeZone: zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23"
  });
  function plural(count, word) { return count + " " + word + (count === 1 ? "" : "s"); }
  // The same words as service/reader_time.py's time_left.
  function left(minutes) {
    if (minutes <= 0) { return "no time"; }
    if (minutes < 60) { return plural(minutes, "minute"); }
    var hours = Math.floor(minutes / 60), days = Math.floor(hours / 24);
    hours = hours % 24;
    if (days === 0) { return plural(hours, "hour"); }
    return plural(days, "day") + (hours ? " " + plural(hours, "hour") : "");
  }
  var named = zone === "UTC" || zone === "Etc/UTC" ? "UTC" : zone + " time";
  document.querySelectorAll("time[data-deadline]").forEach(function (element) {
    var at = new Date(element.getAttribute("datetime"));
    if (isNaN(at.getTime())) { return; }
    var minutes = Math.floor((at.getTime() - Date.now()) / 60000);
    element.textContent = day.format(at) + ", " + clock.format(at) + " " + named +
      " (" + left(minutes) + " left)";
  });
}());
