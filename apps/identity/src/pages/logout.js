// The sign-out page the app itself asked for (its ID token came with the request): post the form at once.
document.getElementById('op.logoutForm').submit();
