package web

import (
	"strings"

	"github.com/gofiber/fiber/v2"
)

// messages are the area's words: key → [Russian, English].
var messages = map[string][2]string{
	"brand":             {"Шлюз", "Shlyuz"},
	"tagline":           {"Один API — сотни моделей, оплата в рублях", "One API for hundreds of models, paid in rubles"},
	"models":            {"Модели и цены", "Models and prices"},
	"search":            {"Поиск модели", "Search models"},
	"model":             {"Модель", "Model"},
	"end_user":          {"Пользователь", "End user"},
	"context":           {"Контекст", "Context"},
	"register":          {"Регистрация", "Sign up"},
	"login":             {"Вход", "Log in"},
	"logout":            {"Выйти", "Log out"},
	"email":             {"Эл. почта", "Email"},
	"password":          {"Пароль", "Password"},
	"password_hint":     {"Не короче 10 символов", "At least 10 characters"},
	"new_password":      {"Новый пароль", "New password"},
	"create_account":    {"Создать аккаунт", "Create account"},
	"log_in":            {"Войти", "Log in"},
	"forgot":            {"Забыли пароль?", "Forgot your password?"},
	"reset":             {"Сброс пароля", "Reset password"},
	"send_reset":        {"Прислать ссылку", "Send the link"},
	"set_password":      {"Сохранить пароль", "Save password"},
	"check_mail":        {"Мы отправили письмо на указанный адрес. Перейдите по ссылке из письма.", "We sent a letter to that address. Follow the link in it."},
	"confirmed":         {"Адрес подтверждён. Теперь войдите.", "Your email is confirmed. Log in now."},
	"bad_link":          {"Ссылка неверна или устарела. Запросите новую.", "The link is wrong or expired. Ask for a new one."},
	"password_changed":  {"Пароль изменён. Войдите с новым паролем.", "Your password is changed. Log in with the new one."},
	"bad_email":         {"Укажите правильный адрес эл. почты.", "Enter a valid email address."},
	"weak_password":     {"Пароль слишком короткий: нужно не меньше 10 символов.", "The password is too short: use at least 10 characters."},
	"bad_login":         {"Неверная почта или пароль.", "Wrong email or password."},
	"not_confirmed":     {"Сначала подтвердите адрес: ссылка в письме.", "Confirm your email first: the link is in the letter."},
	"throttled":         {"Слишком много попыток. Попробуйте снова через %d мин.", "Too many attempts. Try again in %d min."},
	"csrf":              {"Форма устарела. Обновите страницу и попробуйте снова.", "The form has expired. Reload the page and try again."},
	"overview":          {"Обзор", "Overview"},
	"balance":           {"Баланс", "Balance"},
	"package":           {"Пакет по тарифу", "Plan package"},
	"package_expires":   {"действует до", "valid until"},
	"no_package":        {"нет пакета", "no package"},
	"bought":            {"Купленные кредиты (не сгорают)", "Bought credits (never expire)"},
	"total":             {"Всего", "Total"},
	"reserved":          {"в резерве у запросов", "held by requests in flight"},
	"rub":               {"₽", "₽"},
	"credits":           {"кредитов", "credits"},
	"topup":             {"Пополнить", "Top up"},
	"topup_title":       {"Пополнение баланса", "Top up the balance"},
	"amount_rub":        {"Сумма, ₽", "Amount, ₽"},
	"amount_hint":       {"От %s, не больше двух знаков после запятой, например 1 000 или 499,90", "From %s, at most two decimals, e.g. 1,000 or 499.90"},
	"pay":               {"Перейти к оплате", "Go to payment"},
	"bad_amount":        {"Укажите сумму от %s до %s, не больше двух знаков после запятой.", "Enter an amount from %s to %s, with at most two decimals."},
	"payments_off":      {"Оплата картой пока не настроена. Обратитесь к оператору: он может пополнить баланс вручную.", "Card payments are not configured. Ask the operator, who can top up your balance by hand."},
	"payment_failed":    {"Платёжная система не приняла платёж. Попробуйте позже.", "The payment system refused the payment. Try again later."},
	"payment":           {"Платёж", "Payment"},
	"payment_pending":   {"Ждём подтверждения платежа…", "Waiting for the payment to be confirmed…"},
	"payment_succeeded": {"Платёж прошёл, кредиты зачислены.", "The payment succeeded; the credits are yours."},
	"payment_canceled":  {"Платёж отменён, ничего не списано и не зачислено.", "The payment was cancelled; nothing was charged or credited."},
	"payments_history":  {"История платежей", "Payments"},
	"status":            {"Статус", "Status"},
	"plans":             {"Тарифы", "Plans"},
	"plan_buy":          {"Купить тариф «%s»", "Buy the plan \"%s\""},
	"plan_package":      {"Пакет: %s (%s)", "Package: %s (%s)"},
	"no_plans":          {"Тарифов пока нет.", "No plans yet."},
	"keys":              {"Ключи API", "API keys"},
	"key_name":          {"Название ключа", "Key name"},
	"key_limit":         {"Лимит расходов, ₽ (пусто — без лимита)", "Spending ceiling, ₽ (empty: none)"},
	"key_reset":         {"Период лимита", "Ceiling period"},
	"key_expires":       {"Действует до (пусто — бессрочно)", "Expires on (empty: never)"},
	"key_management":    {"Ключ управления: создаёт, ограничивает и удаляет другие ключи программно и не вызывает модели", "Management key: makes, limits and deletes the other keys through the API (/api/v1/keys) and calls no model"},
	"create_key":        {"Создать ключ", "Create key"},
	"key_created":       {"Ключ создан. Скопируйте его сейчас: больше мы его не покажем.", "The key is created. Copy it now: it will not be shown again."},
	"new_key":           {"Новый ключ", "New key"},
	"copy":              {"Копировать ключ", "Copy key"},
	"copied":            {"Скопировано", "Copied"},
	"label":             {"Ключ", "Key"},
	"usage_period":      {"Расход за период", "Spent in the period"},
	"limit":             {"Лимит", "Ceiling"},
	"expires":           {"Истекает", "Expires"},
	"revoke":            {"Отозвать ключ %s", "Revoke key %s"},
	"new_limit":         {"Новый лимит ключа %s, ₽ (пусто — без лимита)", "New ceiling of key %s, ₽ (empty: none)"},
	"save_limit":        {"Сохранить лимит ключа %s", "Save the ceiling of key %s"},
	"key_revoked":       {"Ключ отозван: его лимит уже не изменить.", "The key is revoked: its ceiling cannot change."},
	"revoked":           {"отозван", "revoked"},
	"active":            {"действует", "active"},
	"no_keys":           {"Ключей пока нет.", "No keys yet."},
	"bad_limit":         {"Лимит — сумма в рублях, не меньше нуля, не больше двух знаков после запятой.", "The ceiling is an amount in rubles, 0 or more, at most two decimals."},
	// A key's allowed_models on the keys page.
	"key_allowed_models": {"Разрешённые модели (необязательно)", "Allowed models (optional)"},
	"key_allowed_hint":   {"Идентификаторы моделей и префиксы провайдеров через запятую, например", "Model ids and provider prefixes, comma-separated, e.g."},
	"allowed_models":     {"Модели", "Models"},
	"bad_allowed_models": {"Разрешённые модели: не больше 100, каждая без пробелов и не длиннее 200 байт.", "Allowed models: at most 100, each without spaces and at most 200 bytes long."},

	"bad_expiry":        {"Дата окончания должна быть в будущем.", "The expiry date must be in the future."},
	"bad_name":          {"Название — от 1 до 100 символов.", "The name must be 1 to 100 characters."},
	"activity":          {"Активность", "Activity"},
	"time":              {"Время", "Time"},
	"tokens":            {"Токены (вход/выход)", "Tokens (in/out)"},
	"filter":            {"Показать", "Filter"},
	"all":               {"все", "all"},
	"csv":               {"Скачать CSV", "Download CSV"},
	"prev":              {"Назад", "Previous"},
	"next":              {"Дальше", "Next"},
	"daily_spend":       {"Расход по дням (30 дней)", "Daily spend (30 days)"},
	"no_activity":       {"Запросов пока не было.", "No requests yet."},
	"web_chat":          {"веб-чат", "web chat"},
	"chat":              {"Чат", "Chat"},
	"message":           {"Сообщение", "Message"},
	"send":              {"Отправить", "Send"},
	"cost":              {"Стоимость", "Cost"},
	"conversations":     {"Разговоры", "Conversations"},
	"new_conversation":  {"Новый разговор", "New conversation"},
	"no_conversations":  {"Разговоров пока нет: они сохраняются после первого ответа.", "No conversations yet: one is kept after its first reply."},
	"delete":            {"Удалить", "Delete"},
	"delete_conv":       {"Удалить разговор «%s»", "Delete the conversation “%s”"},
	"conv_too_long":     {"Разговор слишком длинный, чтобы его сохранить (больше %d КБ или %d сообщений). Начните новый.", "This conversation is too long to keep (over %d KB or %d messages). Start a new one."},
	"conv_too_many":     {"У вас уже %d разговоров — это предел. Удалите какой-нибудь, чтобы начать новый.", "You keep %d conversations, the most allowed. Delete one to start another."},
	"signed_out":        {"Сеанс завершён. Войдите снова.", "Your session has ended. Log in again."},
	"conv_not_saved":    {"Ответ получен, но разговор не сохранён", "The reply came, but the conversation was not kept"},
	"language":          {"English", "Русский"},
	"not_found":         {"Страница не найдена.", "Page not found."},
	"error":             {"Что-то пошло не так. Попробуйте позже.", "Something went wrong. Try again later."},
	"mail_confirm_subj": {"Подтвердите адрес — Шлюз", "Confirm your email — Shlyuz"},
	"mail_confirm":      {"Чтобы подтвердить адрес, откройте ссылку (действует 24 часа):\n\n%s\n", "To confirm your email, open the link (valid for 24 hours):\n\n%s\n"},
	"mail_exists_subj":  {"Попытка регистрации — Шлюз", "Sign-up attempt — Shlyuz"},
	"mail_exists":       {"Кто-то пытался зарегистрироваться с вашим адресом, но аккаунт уже есть. Забыли пароль? %s\n", "Someone tried to sign up with your address, but you have an account. Forgot your password? %s\n"},
	"mail_reset_subj":   {"Сброс пароля — Шлюз", "Reset your password — Shlyuz"},
	"mail_reset":        {"Чтобы задать новый пароль, откройте ссылку (действует 1 час):\n\n%s\n", "To set a new password, open the link (valid for 1 hour):\n\n%s\n"},
}

// langOf is the page's language: ?lang= (remembered in a cookie), the cookie, the browser's, or Russian.
func langOf(c *fiber.Ctx) string {
	if l := c.Query("lang"); l == "en" || l == "ru" {
		c.Cookie(&fiber.Cookie{Name: "lang", Value: l, Path: "/", MaxAge: 365 * 24 * 3600, SameSite: "Lax", HTTPOnly: true})
		return l
	}
	if l := c.Cookies("lang"); l == "en" || l == "ru" {
		return l
	}
	for _, part := range strings.Split(c.Get(fiber.HeaderAcceptLanguage), ",") {
		tag := strings.ToLower(strings.TrimSpace(strings.SplitN(part, ";", 2)[0]))
		switch {
		case strings.HasPrefix(tag, "ru"):
			return "ru"
		case strings.HasPrefix(tag, "en"):
			return "en"
		}
	}
	return "ru"
}

// tr is the message key in the language.
func tr(lang, key string) string {
	m, ok := messages[key]
	if !ok {
		return key
	}
	if lang == "en" {
		return m[1]
	}
	return m[0]
}
