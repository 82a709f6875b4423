// Copy buttons: each button[data-copy] copies the text of the element with that id. The page
// works without this script (the text is selectable).
document.addEventListener("click", function (e) {
  var id = e.target && e.target.getAttribute && e.target.getAttribute("data-copy");
  if (!id) return;
  var text = document.getElementById(id).textContent;
  navigator.clipboard.writeText(text).then(function () {
    e.target.textContent = "Copied";
    setTimeout(function () { e.target.textContent = "Copy"; }, 1500);
  });
});
