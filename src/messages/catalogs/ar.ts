import type { FieldRule } from '../../core/form-rules.js';
import type { PageMessages } from '../page-messages.js';

function problem(rule: FieldRule): string {
  switch (rule.code) {
    case 'object':
      return 'يجب أن يكون كائنًا من قيم الحقول';
    case 'unknown-field':
      return 'ليس حقلًا في هذا النموذج';
    case 'required':
      return 'مطلوب';
    case 'boolean':
      return 'يجب أن يكون نعم أو لا';
    case 'number':
      return 'يجب أن يكون رقمًا';
    case 'integer':
      return 'يجب أن يكون عددًا صحيحًا';
    case 'minimum':
      return `يجب ألا يقل عن ${rule.limit}`;
    case 'maximum':
      return `يجب ألا يزيد على ${rule.limit}`;
    case 'list':
      return 'يجب أن يكون قائمة من الخيارات';
    case 'not-offered':
      return 'يحتوي على خيار غير معروض';
    case 'twice':
      return 'يحتوي على خيار مكرر';
    case 'min-items':
      return `يحتاج إلى ${rule.limit} من الخيارات على الأقل`;
    case 'max-items':
      return `يسمح بـ ${rule.limit} من الخيارات على الأكثر`;
    case 'option':
      return 'يجب أن يكون أحد الخيارات المعروضة';
    case 'text':
      return 'يجب أن يكون نصًا';
    case 'min-length':
      return `يجب ألا يقل عن ${rule.limit} من الأحرف`;
    case 'max-length':
      return `يجب ألا يزيد على ${rule.limit} من الأحرف`;
    case 'format':
      return {
        email: 'يجب أن يكون عنوان بريد إلكتروني',
        uri: 'يجب أن يكون رابطًا (URL)',
        date: 'يجب أن يكون تاريخًا (YYYY-MM-DD)',
        'date-time': 'يجب أن يكون تاريخًا ووقتًا (ISO 8601 مع المنطقة الزمنية)',
      }[rule.format];
    case 'http-url':
      return 'يجب أن يكون عنوان ويب يبدأ بـ https:// أو http://';
  }
}

/** نصوص الصفحات بالعربية (`ar`): تُعرض من اليمين إلى اليسار. */
export const AR_MESSAGES: PageMessages = {
  labels: {
    apiKey: 'مفتاح API',
    apiKeyNote: 'يُرسَل المفتاح إلى هذا الخادم فقط، ولا يراه المساعد الذكي أبدًا.',
    submit: 'إرسال',
    cancel: 'إلغاء',
    requiredNote: { before: 'الحقول المعلّمة بنجمة (', after: ') مطلوبة.' },
    closeWindow: 'يمكنك إغلاق هذه النافذة.',
    fromAssistant: 'طلب من المساعد',
    extend: 'تحتاج إلى وقت أطول؟',
    errorSummary: 'هناك مشكلة',
    inbox: 'الأسئلة المفتوحة',
  },
  headings: {
    apiKey: 'مطلوب مفتاح API',
    confirm: 'يرجى التأكيد',
    form: 'يرجى تعبئة هذا النموذج',
    file: 'يرجى اختيار ملف',
    done: 'تم',
    tooManyAttempts: 'محاولات غير صالحة كثيرة جدًا',
    noMoreTime: 'لا مزيد من الوقت',
    forgedPost: 'انتهت صلاحية هذا النموذج',
    uploadInProgress: 'جارٍ رفع ملف',
    byStatus: {
      400: 'هناك خطأ في هذا الطلب',
      401: 'يرجى تسجيل الدخول',
      403: 'ليس طلبك',
      404: 'الطلب غير موجود',
      409: 'تمت الإجابة مسبقًا',
      410: 'انتهت صلاحية هذا الطلب',
      413: 'بيانات كثيرة جدًا',
      415: 'النموذج غير مقبول',
      429: 'طلبات كثيرة جدًا',
      502: 'رفضت الخدمة الأخرى',
      503: 'غير متاح مؤقتًا',
    },
    finished: (status) => {
      switch (status) {
        case 'completed':
          return 'تمت الإجابة مسبقًا';
        case 'declined':
          return 'تم الرفض مسبقًا';
        case 'cancelled':
          return 'أُلغي الطلب';
        default:
          return 'لم يعد مفتوحًا';
      }
    },
    otherError: 'خطأ',
  },
  done: {
    declined: 'لقد رفضت الطلب.',
    accountConnected: (provider) => `شكرًا. تم ربط حسابك على ${provider}.`,
    fileReceived: 'شكرًا. تم استلام الملف.',
    apiKeyReceived: 'شكرًا. تم استلام مفتاح API.',
    confirmationReceived: 'شكرًا. تم استلام تأكيدك.',
    answersReceived: 'شكرًا. تم استلام إجاباتك.',
  },
  apiKey: {
    enterKey: 'أدخل مفتاح API.',
    tooLong: (maxLength) => `مفتاح API أطول من ${maxLength} حرفًا.`,
    unknownAction: 'إجراء غير معروف.',
    checkInput: 'تحقق مما أدخلته.',
  },
  oauth: {
    heading: (provider) => `اربط حسابك على ${provider}`,
    intro: (provider) => `تابع لتسجيل الدخول في ${provider} والسماح بالوصول، ثم ستعود إلى هنا.`,
    scopesLabel: 'الوصول المطلوب:',
    note: 'تبقى كلمة مرورك ورموز الوصول بين هذا الخادم والمزوّد، ولا يراها المساعد الذكي أبدًا.',
    continueLabel: (provider) => `المتابعة إلى ${provider}`,
    chooseAction: 'اختر المتابعة أو الإلغاء.',
    stateInvalid: 'رد تسجيل الدخول هذا غير صالح لهذا الطلب. لم يُحفظ شيء. ابدأ من جديد من الرابط الذي أعطاك إياه المساعد.',
    stateExpired: 'استغرق تسجيل الدخول وقتًا طويلًا وانتهت صلاحيته. لم يُحفظ شيء. ابدأ من جديد من الرابط الذي أعطاك إياه المساعد.',
    stateUsed: 'استُخدم رد تسجيل الدخول هذا من قبل. لم يتغير شيء. ابدأ من جديد من الرابط الذي أعطاك إياه المساعد.',
    providerError: (provider, code) =>
      `لم يمنح ${provider} الوصول${code ? ` (${code})` : ''}. لم يُحفظ شيء. يمكنك المحاولة مجددًا من الرابط الذي أعطاك إياه المساعد.`,
    exchangeRefused: (provider) =>
      `رفض ${provider} إكمال تسجيل الدخول. لم يُحفظ شيء. يمكنك المحاولة مجددًا من الرابط الذي أعطاك إياه المساعد.`,
    providerUnavailable: (provider) =>
      `تعذّر الوصول إلى ${provider} الآن. لم يُحفظ شيء. يرجى المحاولة بعد قليل من الرابط الذي أعطاك إياه المساعد.`,
  },
  confirm: {
    confirmLabel: 'تأكيد',
    cancelLabel: 'إلغاء',
    chooseAction: 'اختر التأكيد أو الإلغاء.',
  },
  approval: {
    heading: 'مطلوب موافقتك',
    approve: 'موافقة',
    reject: 'رفض',
    action: 'ما توافق عليه',
    requestedBy: 'مقدم الطلب',
    tool: 'الأداة',
    arguments: 'المعاملات',
    hash: 'البصمة',
    waiting: 'بانتظار الموافقة',
    progress: (approved, quorum) => `${approved} من ${quorum} موافقات`,
    approvedBy: 'وافق',
    rejectedBy: 'رفض',
    waitingFor: 'بانتظار',
  },
  form: {
    summary: (fieldsToCheck, attemptsLeft) =>
      `تحقق من الحقول المعلّمة أدناه (${fieldsToCheck}). بعد ${attemptsLeft} من المحاولات غير الصالحة الإضافية سيُرفض هذا الطلب.`,
    declinedAfter: (maxAttempts) =>
      `رُفض هذا الطلب بعد ${maxAttempts} من المحاولات غير الصالحة. لم يُحفظ شيء. إن كنت لا تزال تريد الإجابة، فاطلب من المساعد مرة أخرى.`,
    fieldError: (label, text) => `${label}: ${text}.`,
    enterSecretAgain: 'أدخله مرة أخرى: لا تُعاد الأسرار إلى الصفحة أبدًا.',
    timeInUtc: 'الوقت بالتوقيت العالمي المنسق (UTC).',
    chooseBetween: (min, max) => `اختر من ${min} إلى ${max}.`,
    chooseAtLeast: (min) => `اختر ${min} على الأقل.`,
    chooseAtMost: (max) => `اختر ${max} على الأكثر.`,
    choosePlaceholder: 'اختر…',
    noChoice: '(لا شيء)',
  },
  validation: { problem },
  time: {
    expiresAt: (relative, absolute) => `تنتهي صلاحية هذا الطلب ${relative} (${absolute}).`,
    expiresSoon: 'بقيت أقل من دقيقة: أجب الآن أو اطلب وقتًا أطول.',
    expiredNow: 'انتهت صلاحية هذا الطلب. اطلب من المساعد أن يبدأ من جديد.',
    extendHint: (minutes) => `يضيف ${minutes} من الدقائق، مرة واحدة.`,
    extended: 'لديك الآن وقت أطول.',
    alreadyExtended: 'حصل هذا الطلب على وقت إضافي مرة من قبل. لم يتغير شيء.',
    cannotExtend: 'لا يمكن منح هذا الطلب وقتًا إضافيًا. لم يتغير شيء.',
  },
  inbox: {
    heading: 'أسئلتك المفتوحة',
    intro: 'الأسئلة التي تنتظر إجابتك، الأحدث أولًا. تتحدّث القائمة من تلقاء نفسها.',
    empty: 'لا شيء بانتظارك الآن. ستظهر الأسئلة الجديدة هنا.',
    tool: 'الأداة',
    client: 'التطبيق',
    askedAt: 'طُرح',
    expiresAt: 'ينتهي',
    answer: 'أجب عن هذا السؤال',
    follow: 'اطّلع على حالة هذه الموافقة',
    older: 'أسئلة أقدم',
    newest: 'العودة إلى أحدث الأسئلة',
    arrived: 'وصلت أسئلة جديدة.',
    left: 'أُزيلت من القائمة أسئلة أُجيب عنها أو انتهت صلاحيتها.',
  },
  file: {
    label: 'الملف',
    accepted: (types) => `المقبول: ${types}.`,
    maxSize: (size) => `بحد أقصى ${size}.`,
    chooseFile: 'اختر ملفًا.',
    oneFile: 'أرسل ملفًا واحدًا فقط. لم يُحفظ شيء.',
    empty: 'الملف فارغ. لم يُحفظ شيء.',
    tooLarge: (size) => `حجم الملف أكبر من ${size}. لم يُحفظ شيء.`,
    wrongType: (types) => `هذا النوع من الملفات غير مقبول (المقبول: ${types}). لم يُحفظ شيء.`,
    busy: 'لا يزال ملف آخر لهذا الطلب قيد الاستلام. لم يُحفظ هذا الملف. انتظر حتى يكتمل الآخر، ثم أعد تحميل الصفحة.',
    serverBusy: (retryAfterSeconds) =>
      `يستقبل هذا الخادم ملفات كثيرة جدًا الآن. لم يُحفظ شيء. انتظر ${retryAfterSeconds} ثانية، ثم أرسل الملف مرة أخرى.`,
  },
  errors: {
    notFound: 'لم يُعثر على هذا الطلب. ربما انتهت صلاحيته أو أن الرابط غير صحيح.',
    expired: 'انتهت صلاحية هذا الطلب. اطلب من المساعد أن يبدأ من جديد.',
    finished: (status) => {
      switch (status) {
        case 'completed':
          return 'تمت الإجابة عن هذا الطلب مسبقًا. لم يتغير شيء.';
        case 'declined':
          return 'رُفض هذا الطلب مسبقًا. لم يتغير شيء.';
        case 'cancelled':
          return 'أُلغي هذا الطلب (من المساعد أو من التطبيق) ولم يعد مفتوحًا. لم يتغير شيء.';
        default:
          return 'لم يعد هذا الطلب مفتوحًا. لم يتغير شيء.';
      }
    },
    signIn: 'يرجى تسجيل الدخول إلى هذا التطبيق، ثم فتح الرابط مرة أخرى.',
    otherAccount: 'هذا الطلب مخصص لحساب آخر. سجّل الدخول بالحساب الذي طلب، أو اطلب من المساعد مرة أخرى.',
    tooMuchData: 'أرسل النموذج بيانات كثيرة جدًا. لم يُحفظ شيء.',
    forgedPost: 'انتهت صلاحية هذا النموذج أو لم يُرسل من هذا الموقع. لم يُحفظ شيء. أعد تحميل الصفحة وحاول مرة أخرى.',
    throttled: (retryAfterSeconds) => `طلبات كثيرة جدًا من شبكتك. انتظر ${retryAfterSeconds} ثانية، ثم حاول مرة أخرى.`,
    answerTooLarge: 'الإجابة أكبر من أن تُخزَّن. لم يُحفظ شيء.',
    unavailable: 'هذه الخدمة غير متاحة مؤقتًا. لم يُحفظ شيء. يرجى المحاولة بعد قليل.',
    keyMismatch:
      'لا يستطيع هذا الخادم قراءة هذا الطلب بسبب مشكلة في الإعداد لدينا. لم يُحفظ شيء. يرجى المحاولة بعد قليل؛ وإن استمرت المشكلة فأبلغ مشغّل الموقع.',
    unexpected: 'حدث خطأ من جهتنا. يرجى المحاولة لاحقًا.',
    statusUnavailable: 'مخزن الطلبات غير متاح مؤقتًا. حاول بعد قليل.',
    shuttingDown: 'يُعاد تشغيل هذا الخادم. لم يُحفظ شيء. يرجى المحاولة بعد قليل.',
    statusLine: (statusCode) => `الحالة ${statusCode}. يمكنك إغلاق هذه النافذة.`,
    unreadable: 'تعذّرت قراءة هذا الطلب. لم يُحفظ شيء. تحقق من الرابط، أو أعد تحميل الصفحة وحاول مرة أخرى.',
    noSuchPage: 'لا توجد صفحة على هذا العنوان. تحقق من الرابط، أو اطلب من المساعد أن يبدأ من جديد.',
    unsupportedBody: 'أُرسل النموذج بصيغة لا تقبلها هذه الصفحة. لم يُحفظ شيء. أعد تحميل الصفحة وحاول مرة أخرى.',
  },
};
