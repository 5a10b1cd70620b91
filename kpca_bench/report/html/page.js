// Sort a table by the column whose header is clicked (numbers by value before the rest, as text),
// and filter its rows by the text typed in the box above it.
(function () {
  "use strict";
  function cellValue(row, column) {
    var cell = row.cells[column];
    return cell ? cell.textContent.trim() : "";
  }
  function asNumber(text) {
    var match = /^[-+]?(\d+(\.\d*)?|\.\d+)(e[-+]?\d+)?/i.exec(text.replace(/,/g, ""));
    return match ? parseFloat(match[0]) : NaN;
  }
  function compare(a, b) {
    var x = asNumber(a), y = asNumber(b);
    if (!isNaN(x) && !isNaN(y)) { return x - y; }
    if (isNaN(x) !== isNaN(y)) { return isNaN(x) ? 1 : -1; }
    return a.localeCompare(b, undefined, {numeric: true});
  }
  function sortBy(table, header, column) {
    var descending = header.getAttribute("aria-sort") === "ascending";
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (r, s) {
      var a = cellValue(r, column), b = cellValue(s, column);
      var missingA = isNaN(asNumber(a)), missingB = isNaN(asNumber(b));
      // A cell without a number ("–", failed) stays below the numbers in both directions.
      if (missingA !== missingB) { return missingA ? 1 : -1; }
      var order = compare(a, b);
      return descending ? -order : order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell) { cell.removeAttribute("aria-sort"); });
    header.setAttribute("aria-sort", descending ? "descending" : "ascending");
  }
  function filterRows(table, query) {
    var words = query.toLowerCase().split(/\s+/).filter(Boolean);
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
      var text = row.textContent.toLowerCase();
      row.hidden = !words.every(function (word) { return text.indexOf(word) >= 0; });
    });
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    if (!table.tHead || !table.tBodies.length) { return; }
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header, column) {
      header.title = "click to sort";
      header.addEventListener("click", function () { sortBy(table, header, column); });
    });
    var box = table.parentNode.querySelector("input.table-filter");
    if (box) { box.addEventListener("input", function () { filterRows(table, box.value); }); }
  });
})();
