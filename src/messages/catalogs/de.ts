import type { FieldRule } from '../../core/form-rules.js';
import type { PageMessages } from '../page-messages.js';

const plural = (count: number, one: string, many: string): string => (count === 1 ? one : many);

function problem(rule: FieldRule): string {
  switch (rule.code) {
    case 'object':
      return 'muss ein Objekt aus Feldwerten sein';
    case 'unknown-field':
      return 'ist kein Feld dieses Formulars';
    case 'required':
      return 'ist ein Pflichtfeld';
    case 'boolean':
      return 'muss ja oder nein sein';
    case 'number':
      return 'muss eine Zahl sein';
    case 'integer':
      return 'muss eine ganze Zahl sein';
    case 'minimum':
      return `muss mindestens ${rule.limit} sein`;
    case 'maximum':
      return `darf höchstens ${rule.limit} sein`;
    case 'list':
      return 'muss eine Liste von Optionen sein';
    case 'not-offered':
      return 'enthält eine Option, die nicht angeboten wird';
    case 'twice':
      return 'enthält eine Option doppelt';
    case 'min-items':
      return `braucht mindestens ${rule.limit} ${plural(rule.limit, 'Option', 'Optionen')}`;
    case 'max-items':
      return `erlaubt höchstens ${rule.limit} ${plural(rule.limit, 'Option', 'Optionen')}`;
    case 'option':
      return 'muss eine der angebotenen Optionen sein';
    case 'text':
      return 'muss Text sein';
    case 'min-length':
      return `muss mindestens ${rule.limit} ${plural(rule.limit, 'Zeichen', 'Zeichen')} lang sein`;
    case 'max-length':
      return `darf höchstens ${rule.limit} ${plural(rule.limit, 'Zeichen', 'Zeichen')} lang sein`;
    case 'format':
      return {
        email: 'muss eine E-Mail-Adresse sein',
        uri: 'muss eine URL sein',
        date: 'muss ein Datum sein (JJJJ-MM-TT)',
        'date-time': 'muss Datum und Uhrzeit sein (ISO 8601 mit Zeitzone)',
      }[rule.format];
    case 'http-url':
      return 'muss eine Webadresse sein, die mit https:// oder http:// beginnt';
  }
}

/** Die Texte der Seiten auf Deutsch (`de`). */
export const DE_MESSAGES: PageMessages = {
  labels: {
    apiKey: 'API-Schlüssel',
    apiKeyNote: 'Der Schlüssel geht nur an diesen Server. Der KI-Assistent bekommt ihn nie zu sehen.',
    submit: 'Absenden',
    cancel: 'Abbrechen',
    requiredNote: { before: 'Felder mit Sternchen (', after: ') sind Pflichtfelder.' },
    closeWindow: 'Sie können dieses Fenster schließen.',
    fromAssistant: 'Anfrage des Assistenten',
    extend: 'Mehr Zeit nötig?',
    errorSummary: 'Bitte prüfen Sie Ihre Angaben',
    inbox: 'Offene Fragen',
  },
  headings: {
    apiKey: 'Ein API-Schlüssel wird benötigt',
    confirm: 'Bitte bestätigen',
    form: 'Bitte füllen Sie dieses Formular aus',
    file: 'Bitte wählen Sie eine Datei',
    done: 'Erledigt',
    tooManyAttempts: 'Zu viele ungültige Versuche',
    noMoreTime: 'Keine weitere Zeit',
    forgedPost: 'Dieses Formular ist abgelaufen',
    uploadInProgress: 'Upload läuft noch',
    byStatus: {
      400: 'Mit dieser Anfrage stimmt etwas nicht',
      401: 'Bitte melden Sie sich an',
      403: 'Nicht Ihre Anfrage',
      404: 'Anfrage nicht gefunden',
      409: 'Bereits beantwortet',
      410: 'Diese Anfrage ist abgelaufen',
      413: 'Zu viele Daten',
      415: 'Formular nicht angenommen',
      429: 'Zu viele Anfragen',
      502: 'Der andere Dienst hat abgelehnt',
      503: 'Vorübergehend nicht verfügbar',
    },
    finished: (status) => {
      switch (status) {
        case 'completed':
          return 'Bereits beantwortet';
        case 'declined':
          return 'Bereits abgelehnt';
        case 'cancelled':
          return 'Anfrage zurückgezogen';
        default:
          return 'Nicht mehr offen';
      }
    },
    otherError: 'Fehler',
  },
  done: {
    declined: 'Sie haben die Anfrage abgelehnt.',
    accountConnected: (provider) => `Danke. Ihr ${provider}-Konto ist verbunden.`,
    fileReceived: 'Danke. Die Datei ist angekommen.',
    apiKeyReceived: 'Danke. Der API-Schlüssel ist angekommen.',
    confirmationReceived: 'Danke. Ihre Bestätigung ist angekommen.',
    answersReceived: 'Danke. Ihre Antworten sind angekommen.',
  },
  apiKey: {
    enterKey: 'Geben Sie den API-Schlüssel ein.',
    tooLong: (maxLength) => `Der API-Schlüssel ist länger als ${maxLength} Zeichen.`,
    unknownAction: 'Unbekannte Aktion.',
    checkInput: 'Prüfen Sie Ihre Eingabe.',
  },
  oauth: {
    heading: (provider) => `Ihr ${provider}-Konto verbinden`,
    intro: (provider) => `Melden Sie sich bei ${provider} an und erlauben Sie den Zugriff. Danach kommen Sie hierher zurück.`,
    scopesLabel: 'Erbetener Zugriff:',
    note: 'Ihr Passwort und die Zugriffstoken bleiben zwischen diesem Server und dem Anbieter. Der KI-Assistent bekommt sie nie zu sehen.',
    continueLabel: (provider) => `Weiter zu ${provider}`,
    chooseAction: 'Wählen Sie Weiter oder Abbrechen.',
    stateInvalid:
      'Diese Anmeldeantwort passt nicht zu dieser Anfrage. Nichts wurde gespeichert. Beginnen Sie erneut mit dem Link des Assistenten.',
    stateExpired:
      'Die Anmeldung hat zu lange gedauert und ist abgelaufen. Nichts wurde gespeichert. Beginnen Sie erneut mit dem Link des Assistenten.',
    stateUsed: 'Diese Anmeldeantwort wurde schon verwendet. Nichts wurde geändert. Beginnen Sie erneut mit dem Link des Assistenten.',
    providerError: (provider, code) =>
      `${provider} hat den Zugriff nicht gewährt${code ? ` (${code})` : ''}. Nichts wurde gespeichert. Sie können es mit dem Link des Assistenten erneut versuchen.`,
    exchangeRefused: (provider) =>
      `${provider} hat die Anmeldung nicht abgeschlossen. Nichts wurde gespeichert. Sie können es mit dem Link des Assistenten erneut versuchen.`,
    providerUnavailable: (provider) =>
      `${provider} ist gerade nicht erreichbar. Nichts wurde gespeichert. Versuchen Sie es gleich noch einmal mit dem Link des Assistenten.`,
  },
  confirm: {
    confirmLabel: 'Bestätigen',
    cancelLabel: 'Abbrechen',
    chooseAction: 'Wählen Sie Bestätigen oder Abbrechen.',
  },
  approval: {
    heading: 'Ihre Freigabe wird erbeten',
    approve: 'Freigeben',
    reject: 'Ablehnen',
    action: 'Was Sie freigeben',
    requestedBy: 'Angefragt von',
    tool: 'Werkzeug',
    arguments: 'Argumente',
    hash: 'Fingerabdruck',
    waiting: 'Warten auf Freigabe',
    progress: (approved, quorum) => `${approved} von ${quorum} Freigabe${quorum === 1 ? '' : 'n'}`,
    approvedBy: 'Freigegeben von',
    rejectedBy: 'Abgelehnt von',
    waitingFor: 'Ausstehend bei',
  },
  form: {
    summary: (fieldsToCheck, attemptsLeft) =>
      `Prüfen Sie ${plural(fieldsToCheck, 'das markierte Feld', `die ${fieldsToCheck} markierten Felder`)}. ` +
      `Nach ${attemptsLeft} weiteren ungültigen ${plural(attemptsLeft, 'Versuch', 'Versuchen')} wird diese Anfrage abgelehnt.`,
    declinedAfter: (maxAttempts) =>
      `Diese Anfrage wurde nach ${maxAttempts} ungültigen ${plural(maxAttempts, 'Versuch', 'Versuchen')} abgelehnt. ` +
      'Nichts wurde gespeichert. Wenn Sie noch antworten möchten, fragen Sie den Assistenten erneut.',
    fieldError: (label, text) => `${label} ${text}.`,
    enterSecretAgain: 'Geben Sie es erneut ein: Ein Geheimnis wird nie an die Seite zurückgeschickt.',
    timeInUtc: 'Die Uhrzeit ist in UTC.',
    chooseBetween: (min, max) => `Wählen Sie ${min} bis ${max}.`,
    chooseAtLeast: (min) => `Wählen Sie mindestens ${min}.`,
    chooseAtMost: (max) => `Wählen Sie höchstens ${max}.`,
    choosePlaceholder: 'Bitte wählen…',
    noChoice: '(keine)',
  },
  validation: { problem },
  time: {
    expiresAt: (relative, absolute) => `Diese Anfrage läuft ${relative} ab (${absolute}).`,
    expiresSoon: 'Weniger als eine Minute übrig: Antworten Sie jetzt oder bitten Sie um mehr Zeit.',
    expiredNow: 'Diese Anfrage ist abgelaufen. Bitten Sie den Assistenten, neu zu beginnen.',
    extendHint: (minutes) => `Gibt einmalig ${minutes} ${plural(minutes, 'Minute', 'Minuten')} dazu.`,
    extended: 'Sie haben jetzt mehr Zeit.',
    alreadyExtended: 'Diese Anfrage hat schon einmal mehr Zeit bekommen. Nichts wurde geändert.',
    cannotExtend: 'Diese Anfrage kann keine weitere Zeit bekommen. Nichts wurde geändert.',
  },
  passkeys: {
    heading: 'Ihre Passkeys',
    link: 'Meine Passkeys',
    intro:
      'Mit einem Passkey bestätigen Sie die heikelsten Anfragen mit Fingerabdruck, Gesicht oder Geräte-PIN: eine Signatur, die niemand in Ihrem Namen erstellen kann, auch nicht mit Ihrer Sitzung.',
    none: 'Sie haben noch keinen Passkey.',
    nameLabel: 'Bezeichnung (optional)',
    add: 'Passkey hinzufügen',
    remove: 'Entfernen',
    added: (date) => `Hinzugefügt am ${date}`,
    lastUsed: (date) => `zuletzt verwendet am ${date}`,
    addedNotice: 'Ihr Passkey wurde hinzugefügt.',
    removedNotice: 'Der Passkey wurde entfernt. Von ihm signierte Entscheidungen bleiben prüfbar.',
    back: 'Zurück zur Anfrage',
    notAllowed: 'Sie können hier keinen Passkey hinzufügen. Wenden Sie sich an Ihre Administration.',
    unsupported: 'Dieser Browser kann keine Passkeys verwenden. Öffnen Sie die Seite in einem aktuellen Browser.',
    failed: 'Der Passkey hat nicht geantwortet. Versuchen Sie es erneut.',
    signNote: 'Diese Anfrage verlangt Ihren Passkey: Mit der Genehmigung signieren Sie genau das oben Gezeigte und nichts anderes.',
    needed: 'Sie brauchen einen Passkey, um diese Anfrage zu genehmigen. Fügen Sie einen hinzu und kehren Sie dann zu dieser Seite zurück.',
    refused: {
      malformed:
        'Mit Ihrer Antwort kam keine Passkey-Signatur. Genehmigen Sie erneut und verwenden Sie Ihren Passkey, wenn der Browser fragt.',
      'no-passkey': 'Sie haben noch keinen Passkey. Fügen Sie einen hinzu und genehmigen Sie dann erneut.',
      'unknown-credential': 'Dieser Passkey ist hier nicht registriert. Verwenden Sie einen Passkey Ihres Kontos.',
      'other-user': 'Dieser Passkey gehört zu einem anderen Konto. Verwenden Sie Ihren eigenen Passkey.',
      removed: 'Dieser Passkey wurde aus Ihrem Konto entfernt. Verwenden Sie einen anderen.',
      'other-action': 'Diese Signatur wurde für eine andere Anfrage oder andere Argumente erstellt. Nichts wurde genehmigt.',
      replayed: 'Diese Signatur wurde bereits verwendet. Genehmigen Sie erneut mit Ihrem Passkey.',
      'not-verified': 'Die Passkey-Signatur konnte nicht geprüft werden. Nichts wurde genehmigt.',
      expired: 'Die Einrichtung des Passkeys hat zu lange gedauert oder wurde schon verwendet. Beginnen Sie erneut.',
      exists: 'Dieser Passkey ist bereits registriert.',
      limit: 'Sie haben so viele Passkeys wie erlaubt. Entfernen Sie zuerst einen.',
    },
  },
  inbox: {
    heading: 'Ihre offenen Fragen',
    intro: 'Fragen, die auf Ihre Antwort warten, die neuesten zuerst. Die Liste aktualisiert sich von selbst.',
    empty: 'Zurzeit wartet nichts auf Sie. Neue Fragen erscheinen hier.',
    tool: 'Werkzeug',
    client: 'Anwendung',
    askedAt: 'Gestellt',
    expiresAt: 'Läuft ab',
    answer: 'Diese Frage beantworten',
    follow: 'Stand dieser Freigabe ansehen',
    older: 'Ältere Fragen',
    newest: 'Zurück zu den neuesten Fragen',
    arrived: 'Neue Fragen sind eingetroffen.',
    left: 'Beantwortete oder abgelaufene Fragen wurden aus der Liste entfernt.',
  },
  file: {
    label: 'Datei',
    accepted: (types) => `Erlaubt: ${types}.`,
    maxSize: (size) => `Höchstens ${size}.`,
    chooseFile: 'Wählen Sie eine Datei.',
    oneFile: 'Senden Sie nur eine Datei. Nichts wurde gespeichert.',
    empty: 'Die Datei ist leer. Nichts wurde gespeichert.',
    tooLarge: (size) => `Die Datei ist größer als ${size}. Nichts wurde gespeichert.`,
    wrongType: (types) => `Diese Art von Datei wird nicht angenommen (erlaubt: ${types}). Nichts wurde gespeichert.`,
    busy: 'Eine andere Datei für diese Anfrage wird noch empfangen. Diese wurde nicht gespeichert. Warten Sie, bis die andere angekommen ist, und laden Sie dann die Seite neu.',
    serverBusy: (retryAfterSeconds) =>
      `Dieser Server empfängt gerade zu viele Dateien. Nichts wurde gespeichert. Warten Sie ${retryAfterSeconds} ${plural(retryAfterSeconds, 'Sekunde', 'Sekunden')} und senden Sie die Datei dann erneut.`,
  },
  errors: {
    notFound: 'Diese Anfrage wurde nicht gefunden. Vielleicht ist sie abgelaufen, oder der Link ist falsch.',
    expired: 'Diese Anfrage ist abgelaufen. Bitten Sie den Assistenten, neu zu beginnen.',
    finished: (status) => {
      switch (status) {
        case 'completed':
          return 'Diese Anfrage wurde bereits beantwortet. Nichts wurde geändert.';
        case 'declined':
          return 'Diese Anfrage wurde bereits abgelehnt. Nichts wurde geändert.';
        case 'cancelled':
          return 'Diese Anfrage wurde (vom Assistenten oder der Anwendung) zurückgezogen und ist nicht mehr offen. Nichts wurde geändert.';
        default:
          return 'Diese Anfrage ist nicht mehr offen. Nichts wurde geändert.';
      }
    },
    signIn: 'Bitte melden Sie sich bei dieser Anwendung an und öffnen Sie den Link dann erneut.',
    otherAccount:
      'Diese Anfrage gilt einem anderen Konto. Melden Sie sich mit dem Konto an, das gefragt hat, oder fragen Sie den Assistenten erneut.',
    tooMuchData: 'Das Formular hat zu viele Daten gesendet. Nichts wurde gespeichert.',
    forgedPost:
      'Dieses Formular ist abgelaufen oder wurde nicht von dieser Website gesendet. Nichts wurde gespeichert. Laden Sie die Seite neu und versuchen Sie es erneut.',
    throttled: (retryAfterSeconds) =>
      `Zu viele Anfragen aus Ihrem Netzwerk. Warten Sie ${retryAfterSeconds} ${plural(retryAfterSeconds, 'Sekunde', 'Sekunden')} und versuchen Sie es dann erneut.`,
    answerTooLarge: 'Die Antwort ist zu groß zum Speichern. Nichts wurde gespeichert.',
    unavailable: 'Dieser Dienst ist vorübergehend nicht verfügbar. Nichts wurde gespeichert. Bitte versuchen Sie es gleich noch einmal.',
    keyMismatch:
      'Dieser Server kann die Anfrage wegen eines Konfigurationsproblems auf unserer Seite nicht lesen. Nichts wurde gespeichert. Bitte versuchen Sie es gleich noch einmal; wenn es so bleibt, melden Sie es dem Betreiber der Website.',
    unexpected: 'Auf unserer Seite ist etwas schiefgegangen. Bitte versuchen Sie es später noch einmal.',
    statusUnavailable: 'Der Speicher ist vorübergehend nicht verfügbar. Versuchen Sie es gleich noch einmal.',
    shuttingDown: 'Dieser Server startet neu. Nichts wurde gespeichert. Bitte versuchen Sie es gleich noch einmal.',
    statusLine: (statusCode) => `Status ${statusCode}. Sie können dieses Fenster schließen.`,
    unreadable:
      'Diese Anfrage konnte nicht gelesen werden. Nichts wurde gespeichert. Prüfen Sie den Link, oder laden Sie die Seite neu und versuchen Sie es erneut.',
    noSuchPage: 'Unter dieser Adresse gibt es keine Seite. Prüfen Sie den Link, oder bitten Sie den Assistenten, neu zu beginnen.',
    unsupportedBody:
      'Das Formular wurde in einem Format gesendet, das diese Seite nicht annimmt. Nichts wurde gespeichert. Laden Sie die Seite neu und versuchen Sie es erneut.',
  },
};
