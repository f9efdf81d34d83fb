// gaji passage view (/passage/<token>, rendered by the server): bring the cited passage into view. The view
// is complete without this script; it only scrolls.
"use strict";

document.addEventListener("DOMContentLoaded", () => {
  const cited = document.getElementById("passage");
  if (cited && !window.location.hash) cited.scrollIntoView({ block: "center" });
});
