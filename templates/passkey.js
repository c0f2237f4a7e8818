// The passkey ceremonies (served once, cached: PageAssets): a form marked `data-passkey="sign"` (a confirm page that
// asks for a passkey) has its confirm button sign the page's decision first; `data-passkey="register"` (the passkey
// page) makes a new passkey first. The browser's answer goes in the form's `passkey` field, as JSON, and the form is
// posted; the server checks everything. The options come from the form's `data-passkey-options` (JSON).
/* global document, window -- a browser script */
(function () {
  var form = document.querySelector('form[data-passkey]');
  if (!form) return;
  var mode = form.getAttribute('data-passkey');
  var field = form.querySelector('input[name="passkey"]');
  var status = document.getElementById('passkey-status');
  var options = JSON.parse(form.getAttribute('data-passkey-options'));
  function say(attribute, detail) {
    if (status) status.textContent = status.getAttribute(attribute) + (detail ? ' (' + detail + ')' : '');
  }
  if (!window.PublicKeyCredential || !navigator.credentials) {
    say('data-unsupported');
    return;
  }
  function bytes(text) {
    var base64 = text.replace(/-/g, '+').replace(/_/g, '/');
    while (base64.length % 4) base64 += '=';
    var binary = atob(base64);
    var out = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out.buffer;
  }
  function text(buffer) {
    var view = new Uint8Array(buffer);
    var binary = '';
    for (var i = 0; i < view.length; i++) binary += String.fromCharCode(view[i]);
    return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }
  function descriptors(list) {
    return (list || []).map(function (c) {
      return { type: 'public-key', id: bytes(c.id), transports: c.transports };
    });
  }
  function request() {
    if (mode === 'sign') {
      return navigator.credentials.get({
        publicKey: {
          challenge: bytes(options.challenge),
          rpId: options.rpId,
          allowCredentials: descriptors(options.allowCredentials),
          userVerification: options.userVerification,
          timeout: options.timeout,
        },
      });
    }
    return navigator.credentials.create({
      publicKey: {
        challenge: bytes(options.challenge),
        rp: options.rp,
        user: { id: bytes(options.user.id), name: options.user.name, displayName: options.user.displayName },
        pubKeyCredParams: options.pubKeyCredParams,
        timeout: options.timeout,
        excludeCredentials: descriptors(options.excludeCredentials),
        authenticatorSelection: options.authenticatorSelection,
        attestation: options.attestation,
      },
    });
  }
  function json(credential) {
    var r = credential.response;
    var out = {
      id: credential.id,
      rawId: text(credential.rawId),
      type: credential.type,
      clientExtensionResults: credential.getClientExtensionResults ? credential.getClientExtensionResults() : {},
      response: { clientDataJSON: text(r.clientDataJSON) },
    };
    if (credential.authenticatorAttachment) out.authenticatorAttachment = credential.authenticatorAttachment;
    if (r.attestationObject) {
      out.response.attestationObject = text(r.attestationObject);
      out.response.transports = r.getTransports ? r.getTransports() : [];
    } else {
      out.response.authenticatorData = text(r.authenticatorData);
      out.response.signature = text(r.signature);
      if (r.userHandle) out.response.userHandle = text(r.userHandle);
    }
    return out;
  }
  var busy = false;
  form.addEventListener('submit', function (event) {
    var button = event.submitter;
    // Only the decision that lets the tool run is signed; a refusal is posted as it is.
    if (mode === 'sign' && (!button || button.value !== 'confirm')) return;
    if (field.value) return;
    event.preventDefault();
    if (busy) return;
    busy = true;
    request().then(
      function (credential) {
        field.value = JSON.stringify(json(credential));
        busy = false;
        if (form.requestSubmit) return form.requestSubmit(button);
        // An older browser: the button's value goes in a field of its own.
        if (button && button.name) {
          var chosen = document.createElement('input');
          chosen.type = 'hidden';
          chosen.name = button.name;
          chosen.value = button.value;
          form.appendChild(chosen);
        }
        form.submit();
      },
      function (error) {
        busy = false;
        say('data-failed', error && error.name);
      },
    );
  });
})();
