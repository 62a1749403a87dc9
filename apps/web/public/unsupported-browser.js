// Runs only in browsers without ES module support (Internet Explorer); kept ES3-compatible.
(() => {
  var root = document.getElementById('root');
  if (!root) return;
  root.innerHTML =
    '<p style="font-family:Arial,sans-serif;font-size:18px;text-align:center;margin-top:20%">' +
    'Internet Explorer is not supported. Please use Chrome, Firefox or Edge.</p>';
})();
